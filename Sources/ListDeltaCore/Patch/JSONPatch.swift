/// An RFC 6902 JSON Patch: operations applied in order, atomically.
public struct JSONPatch: Sendable, Equatable {
    /// The operations in order.
    public var operations: [JSONPatchOperation]

    /// Creates a patch.
    public init(_ operations: [JSONPatchOperation] = []) {
        self.operations = operations
    }

    /// Reads a patch document (a JSON array of operations).
    /// - Parameter maximumOperations: the most operations it may have: each may cost up to the size of an array
    ///   or object it changes, so their number bounds what a patch costs.
    /// - Throws: `JSONPatchError.invalidPatch`, or `JSONPatchError.tooManyOperations`.
    public init(json: JSONValue, maximumOperations: Int = .max) throws(JSONPatchError) {
        guard case .array(let elements) = json else {
            throw .invalidPatch(index: nil, reason: "a JSON Patch must be an array of operations")
        }
        guard elements.count <= maximumOperations else { throw .tooManyOperations(limit: maximumOperations) }
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
    /// - Parameter copyBudget: the most bytes (of compact JSON) the patch's `copy` operations may copy in all.
    /// - Throws: `JSONPatchError.operationFailed` naming the first operation that cannot be applied,
    ///   `JSONPatchError.copiesTooMuch` naming the copy that passes `copyBudget`.
    /// - Complexity: O(*d* + *a*) per operation for path depth *d* and the length *a* of an array it changes, plus
    ///   O(`copyBudget`) in all to measure what is copied.
    public func apply(to document: consuming JSONValue, copyBudget: Int = .max) throws(JSONPatchError) -> JSONValue {
        var result = consume document
        var copyBudget = CopyBudget(limit: copyBudget)
        for (index, operation) in operations.enumerated() {
            if case let .copy(from, _) = operation, let copied = result.value(at: from), !copyBudget.spend(on: copied) {
                throw .copiesTooMuch(index: index, limit: copyBudget.limit)
            }
            do {
                try result.apply(operation)
            } catch let failure {
                throw .operationFailed(index: index, op: operation.name, path: operation.path.description, reason: failure.reason)
            }
        }
        return result
    }
}

/// What a patch may still copy: a bound on the bytes its `copy` operations bring in, in all.
struct CopyBudget {
    /// The most bytes the patch may copy.
    let limit: Int
    private var left: Int

    init(limit: Int) {
        self.limit = limit
        left = limit
    }

    /// Charges a copy of `value`; `false` when it does not fit in what is left.
    /// - Complexity: O(min(*s*, what is left)) in the size of `value`.
    mutating func spend(on value: JSONValue) -> Bool {
        guard let length = value.compactJSONLength(upTo: left) else { return false }
        left -= length
        return true
    }
}
