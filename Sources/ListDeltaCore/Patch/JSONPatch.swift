/// An RFC 6902 JSON Patch: operations applied in order, atomically.
public struct JSONPatch: Sendable, Equatable {
    /// The operations in order.
    public var operations: [JSONPatchOperation]

    /// Creates a patch.
    public init(_ operations: [JSONPatchOperation] = []) {
        self.operations = operations
    }

    /// Reads a patch document (a JSON array of operations).
    /// - Throws: `JSONPatchError.invalidPatch`.
    public init(json: JSONValue) throws(JSONPatchError) {
        guard case .array(let elements) = json else {
            throw .invalidPatch(index: nil, reason: "a JSON Patch must be an array of operations")
        }
        var operations: [JSONPatchOperation] = []
        operations.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            operations.append(try JSONPatchOperation(json: element, index: index))
        }
        self.operations = operations
    }

    /// The patch as a JSON array.
    public var jsonValue: JSONValue { .array(operations.map(\.jsonValue)) }

    /// `document` with every operation applied in order; on any failure nothing is applied (the input is a value).
    /// - Throws: `JSONPatchError.operationFailed` naming the first operation that cannot be applied.
    /// - Complexity: O(*d* + *a*) per operation for path depth *d* and the length *a* of an array it changes.
    public func apply(to document: consuming JSONValue) throws(JSONPatchError) -> JSONValue {
        var result = consume document
        for (index, operation) in operations.enumerated() {
            do {
                try result.apply(operation)
            } catch let failure {
                throw .operationFailed(index: index, op: operation.name, path: operation.path.description, reason: failure.reason)
            }
        }
        return result
    }
}
