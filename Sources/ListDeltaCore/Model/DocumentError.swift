/// A write that is well-formed JSON but breaks a rule of the document (docs/api.md, Errors: 422).
public struct DocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule that was broken.
    public enum Code: String, Sendable, Equatable {
        /// A value has the wrong JSON type.
        case wrongType
        /// A required member is missing.
        case missingMember
        /// A member that the document format does not have.
        case unknownMember
        /// An id is empty, too long, or (for the list id) does not match the path.
        case invalidID
        /// An item or section id occurs twice.
        case duplicateID
        /// `kind` is not a known kind, or the body's shape does not fit it.
        case invalidKind
        /// An item's `type` is missing from a present cell registry.
        case unknownCellType
        /// More sections than allowed.
        case tooManySections
        /// More items than allowed.
        case tooManyItems
        /// Nested deeper than allowed.
        case tooDeep
    }

    /// The rule that was broken.
    public var code: Code
    /// Where in the request body: a JSON Pointer to the offending value.
    public var pointer: JSONPointer
    /// A sentence for the client.
    public var detail: String

    /// Creates an error.
    public init(_ code: Code, at pointer: JSONPointer, _ detail: String) {
        self.code = code
        self.pointer = pointer
        self.detail = detail
    }

    public var description: String { "\(detail) (at \"\(pointer)\")" }
}
