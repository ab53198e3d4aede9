/// Why a JSON text could not be read.
public enum JSONReadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON (RFC 8259): what was wrong and the byte offset where it was found.
    case malformed(String, offset: Int)
    /// The text nests deeper than allowed; `pointer` is the JSON Pointer of the value that went too deep.
    case tooDeep(limit: Int, pointer: JSONPointer)

    public var description: String {
        switch self {
        case let .malformed(reason, offset): return "malformed JSON at byte \(offset): \(reason)"
        case let .tooDeep(limit, pointer): return "JSON nests deeper than \(limit) levels at \(pointer)"
        }
    }
}
