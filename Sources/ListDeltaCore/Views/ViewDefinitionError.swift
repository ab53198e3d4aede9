/// A view definition that cannot be used: what is wrong (`detail`) and where (`pointer`, a JSON Pointer into the
/// `PUT .../view` body, such as `/where/0/op`), for a 422 problem document.
public struct ViewDefinitionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in words.
    public var detail: String
    /// The JSON Pointer (text form) of the offending member; `""` for the whole body.
    public var pointer: String

    /// Creates an error.
    public init(detail: String, pointer: String) {
        self.detail = detail
        self.pointer = pointer
    }

    init(_ detail: String, at pointer: JSONPointer) {
        self.init(detail: detail, pointer: pointer.description)
    }

    public var description: String { "\(pointer.isEmpty ? "body" : pointer): \(detail)" }
}
