public import ListDeltaCore
import ZlibCodec

/// A JSON body rendered once and kept in both codings, so a representation is compressed once, not per request.
///
/// Its gzip member is spliceable: a body that embeds this one (a write's response embeds the write's diff) is
/// made with ``wrapped(prefix:suffix:)`` from the same compressed bytes, without compressing them again.
public struct RenderedBody: Sendable {
    /// Bodies smaller than this are sent plain (gzip would not pay).
    public static let compressionThreshold = 1_024

    public let plain: [UInt8]
    /// The gzip coding, when it pays.
    public let gzip: [UInt8]?
    /// The gzip member ``gzip`` comes from, when it can be spliced (shares its storage).
    private let member: SpliceableGzip?

    public init(_ value: JSONValue) {
        self.init(bytes: JSONWriter.bytes(of: value))
    }

    public init(bytes: [UInt8]) {
        if bytes.capacity > bytes.count + bytes.count / 8 + 64 {
            // A cached body holds exactly its bytes, not the room its writer grew (up to twice as much).
            var exact: [UInt8] = []
            exact.reserveCapacity(bytes.count)
            exact += bytes
            plain = exact
        } else {
            plain = bytes
        }
        if bytes.count >= Self.compressionThreshold, let member = try? SpliceableGzip(compressing: bytes),
            member.bytes.count < bytes.count
        {
            self.member = member
            gzip = member.bytes
        } else {
            member = nil
            gzip = nil
        }
    }

    private init(plain: [UInt8], gzip: [UInt8]) {
        self.plain = plain
        self.gzip = gzip
        self.member = nil
    }

    /// The bytes held, for cache accounting: both codings' buffers as the allocator rounds them, and the cache
    /// entry's own room (most cached bodies are small diffs, where the overheads are a third of the cost).
    public var cost: Int { HeapFootprint.bytes(plain) + (gzip.map(HeapFootprint.bytes) ?? 0) + Self.entryBytes }

    /// A cache entry's slot (key, body, cost, recency) in a hash table kept under three quarters full.
    public static let entryBytes = 160

    /// `prefix` + this body + `suffix`, in both codings; the gzip coding reuses this body's compressed bytes.
    /// - Complexity: O(*n*) to copy this body, plus compressing the prefix and suffix.
    public func wrapped(prefix: String, suffix: String) -> RenderedBody {
        let prefixBytes = Array(prefix.utf8)
        let suffixBytes = Array(suffix.utf8)
        let whole = prefixBytes + plain + suffixBytes
        guard let member, let spliced = try? member.spliced(prefix: prefixBytes, suffix: suffixBytes) else {
            return RenderedBody(bytes: whole)
        }
        return RenderedBody(plain: whole, gzip: spliced)
    }
}

