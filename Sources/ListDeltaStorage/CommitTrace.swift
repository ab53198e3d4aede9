/// Where a commit came from, as far as whoever is told of it cares: the W3C `traceparent` of the span that wrote it
/// (so a poll or a stream it wakes, here or on another instance, can link its delivery to it) and when it was
/// committed (so the delivery lag can be measured). Bounded: a `traceparent` is 55 characters; anything longer or
/// malformed is dropped, never stored or announced.
public struct CommitTrace: Sendable, Equatable {
    /// The writer's W3C trace context (`00-<trace id>-<span id>-<flags>`), or `nil` when the write was not traced.
    public let traceParent: String?
    /// When the store was asked to commit, in milliseconds since 1970 (this instance's clock).
    public let committedAtMilliseconds: Int64
    /// Whether another instance committed it (read from a shared store's announcement), so that its time is that
    /// instance's clock.
    public let isFromAnotherInstance: Bool

    /// Keeps `traceParent` only when it has the shape of a version-00 `traceparent` (55 lower-case hex digits and
    /// dashes).
    public init(traceParent: String?, committedAtMilliseconds: Int64, isFromAnotherInstance: Bool = false) {
        self.traceParent = traceParent.flatMap { Self.isWellFormed($0) ? $0 : nil }
        self.committedAtMilliseconds = committedAtMilliseconds
        self.isFromAnotherInstance = isFromAnotherInstance
    }

    /// Whether `text` is `00-` + 32 hex + `-` + 16 hex + `-` + 2 hex, all lower case.
    /// - Complexity: O(1): at most 55 characters are read.
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8.prefix(56))
        guard bytes.count == 55 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 2, 35, 52:
                if byte != UInt8(ascii: "-") { return false }
            default:
                let isHex = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                if !isHex { return false }
            }
        }
        return bytes[0] == UInt8(ascii: "0") && bytes[1] == UInt8(ascii: "0")
    }
}
