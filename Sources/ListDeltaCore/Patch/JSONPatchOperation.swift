/// One RFC 6902 operation.
public enum JSONPatchOperation: Sendable, Equatable {
    case add(path: JSONPointer, value: JSONValue)
    case remove(path: JSONPointer)
    case replace(path: JSONPointer, value: JSONValue)
    case move(from: JSONPointer, path: JSONPointer)
    case copy(from: JSONPointer, path: JSONPointer)
    case test(path: JSONPointer, value: JSONValue)

    /// The operation's name (`"add"`, `"remove"`, ...).
    public var name: String {
        switch self {
        case .add: return "add"
        case .remove: return "remove"
        case .replace: return "replace"
        case .move: return "move"
        case .copy: return "copy"
        case .test: return "test"
        }
    }

    /// The operation's target path.
    public var path: JSONPointer {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _), .move(_, let path), .copy(_, let path),
            .test(let path, _):
            return path
        }
    }

    /// The operation as an RFC 6902 JSON object.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.appendUnchecked("op", .string(name))
        switch self {
        case .add(let path, let value), .replace(let path, let value), .test(let path, let value):
            object.appendUnchecked("path", .string(path.description))
            object.appendUnchecked("value", value)
        case .remove(let path):
            object.appendUnchecked("path", .string(path.description))
        case .move(let from, let path), .copy(let from, let path):
            object.appendUnchecked("from", .string(from.description))
            object.appendUnchecked("path", .string(path.description))
        }
        return .object(object)
    }

    /// Reads an operation object; `index` is its place in the patch, for errors.
    /// - Throws: `JSONPatchError.invalidPatch` when the object is not an RFC 6902 operation.
    public init(json: JSONValue, index: Int) throws(JSONPatchError) {
        guard case .object(let object) = json else {
            throw .invalidPatch(index: index, reason: "an operation must be an object")
        }
        guard case .string(let name)? = object["op"] else {
            throw .invalidPatch(index: index, reason: "an operation needs \"op\" as a string")
        }
        func pointer(_ member: String) throws(JSONPatchError) -> JSONPointer {
            guard case .string(let text)? = object[member] else {
                throw .invalidPatch(index: index, reason: "\"\(name)\" needs \"\(member)\" as a string")
            }
            do {
                return try JSONPointer(parsing: text)
            } catch {
                throw .invalidPatch(index: index, reason: error.description)
            }
        }
        func value() throws(JSONPatchError) -> JSONValue {
            guard let value = object["value"] else {
                throw .invalidPatch(index: index, reason: "\"\(name)\" needs \"value\"")
            }
            return value
        }
        switch name {
        case "add": self = .add(path: try pointer("path"), value: try value())
        case "remove": self = .remove(path: try pointer("path"))
        case "replace": self = .replace(path: try pointer("path"), value: try value())
        case "move": self = .move(from: try pointer("from"), path: try pointer("path"))
        case "copy": self = .copy(from: try pointer("from"), path: try pointer("path"))
        case "test": self = .test(path: try pointer("path"), value: try value())
        default: throw .invalidPatch(index: index, reason: "unknown op \"\(name)\"")
        }
    }
}

/// Why a JSON Patch could not be read or applied.
public enum JSONPatchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The patch is not an RFC 6902 document (a 400).
    case invalidPatch(index: Int?, reason: String)
    /// Operation `index` cannot be applied: a missing path, a failed `test`, a bad index (a 409).
    case operationFailed(index: Int, op: String, path: String, reason: String)
    /// Operation `index`, a `copy`, would bring the bytes the patch copied past `limit`, the most one patch may
    /// copy in all (a 413): copies are how a small patch could grow a document without bound.
    case copiesTooMuch(index: Int, limit: Int)
    /// The patch has more operations than `limit`, the most one patch may have (a 413).
    case tooManyOperations(limit: Int)

    public var description: String {
        switch self {
        case .tooManyOperations(let limit):
            return "a JSON Patch may have at most \(limit) operations: send larger changes as a PUT of the document"
        case let .copiesTooMuch(index, limit):
            return "operation \(index) (copy) would make the patch copy more than \(limit) bytes, the most one patch may copy in all"
        case let .invalidPatch(index?, reason): return "operation \(index) is invalid: \(reason)"
        case let .invalidPatch(nil, reason): return "invalid JSON Patch: \(reason)"
        case let .operationFailed(index, op, path, reason): return "operation \(index) (\(op) \"\(path)\") failed: \(reason)"
        }
    }
}
