/// Finds where a request's head (its request line and header fields) ends, from the bytes as they arrive, so that
/// the head has a deadline of its own (``HTTPServerConfiguration/headerTimeoutSeconds``) however its bytes are split.
///
/// A line ends with LF (a CR before it is not content, as evhttp reads lines); the head ends with the first empty
/// line after a line with content. Empty lines before the request line do not end it. Pure: fed whatever slices of
/// the stream arrive, in order.
struct RequestHeadScanner: Sendable, Equatable {
    /// Content bytes seen on the current line.
    private var lineLength = 0
    /// Whether a line with content (the request line) was seen.
    private var sawContent = false
    /// Whether the head's end was found.
    private(set) var isComplete = false

    init() {}

    /// Reads the next bytes of the stream; returns ``isComplete``. Bytes after the head's end are not read.
    /// - Complexity: O(*n*) in the bytes up to the head's end.
    @discardableResult
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !isComplete else { return true }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if lineLength == 0, sawContent {
                    isComplete = true
                    return true
                }
                if lineLength > 0 { sawContent = true }
                lineLength = 0
            case UInt8(ascii: "\r"):
                break
            default:
                lineLength += 1
            }
        }
        return false
    }
}
