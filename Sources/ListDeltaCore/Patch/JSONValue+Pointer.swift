/// Why one operation failed, before the patch names it.
struct PatchStepFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension JSONValue {
    /// The value at `pointer`, or `nil` when it does not exist.
    /// - Complexity: O(*d*) for depth *d* (plus linear key lookups).
    public func value(at pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let array):
                guard let index = Self.arrayIndex(token, count: array.count, allowEnd: false) else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Applies one operation in place.
    mutating func apply(_ operation: JSONPatchOperation) throws(PatchStepFailure) {
        switch operation {
        case let .add(path, value):
            try add(value, at: path)
        case let .remove(path):
            _ = try remove(at: path)
        case let .replace(path, value):
            guard self.value(at: path) != nil else { throw PatchStepFailure("no value at the path") }
            if path.tokens.isEmpty { self = value; return }
            try modifyParent(of: path) { parent, token throws(PatchStepFailure) in
                try parent.setChild(token, to: value, inserting: false)
            }
        case let .move(from, path):
            if from == path { guard value(at: from) != nil else { throw PatchStepFailure("no value at from") }; return }
            guard !from.isPrefix(of: path) else { throw PatchStepFailure("cannot move a value into itself") }
            let moved = try remove(at: from)
            try add(moved, at: path)
        case let .copy(from, path):
            guard let copied = value(at: from) else { throw PatchStepFailure("no value at from") }
            try add(copied, at: path)
        case let .test(path, expected):
            guard let actual = value(at: path) else { throw PatchStepFailure("no value at the path") }
            guard actual == expected else { throw PatchStepFailure("test failed: the value differs") }
        }
    }

    private mutating func add(_ value: JSONValue, at path: JSONPointer) throws(PatchStepFailure) {
        if path.tokens.isEmpty { self = value; return }
        try modifyParent(of: path) { parent, token throws(PatchStepFailure) in
            try parent.setChild(token, to: value, inserting: true)
        }
    }

    private mutating func remove(at path: JSONPointer) throws(PatchStepFailure) -> JSONValue {
        guard !path.tokens.isEmpty else { throw PatchStepFailure("cannot remove the whole document") }
        var removed = JSONValue.null
        try modifyParent(of: path) { parent, token throws(PatchStepFailure) in
            removed = try parent.removeChild(token)
        }
        return removed
    }

    /// Runs `body` on the container that holds the last token of `path`, in place (no copy of large arrays).
    private mutating func modifyParent(
        of path: JSONPointer, _ body: (inout JSONValue, String) throws(PatchStepFailure) -> Void
    ) throws(PatchStepFailure) {
        try descend(path.tokens[...].dropLast(), leaf: path.tokens.last!, body)
    }

    private mutating func descend(
        _ tokens: ArraySlice<String>, leaf: String, _ body: (inout JSONValue, String) throws(PatchStepFailure) -> Void
    ) throws(PatchStepFailure) {
        guard let token = tokens.first else {
            try body(&self, leaf)
            return
        }
        let rest = tokens.dropFirst()
        // Containers are taken out of `self` before they change, so they are uniquely referenced and change in
        // place: switching over `self` would hold a second reference and copy a 100,000-element array per step.
        if var object = takeObject() {
            defer { self = .object(object) }
            guard let position = object.index(of: token) else { throw PatchStepFailure("no member \"\(token)\"") }
            try object.modifyValue(at: position) { child throws(PatchStepFailure) in try child.descend(rest, leaf: leaf, body) }
        } else if var array = takeArray() {
            defer { self = .array(array) }
            guard let index = Self.arrayIndex(token, count: array.count, allowEnd: false) else {
                throw PatchStepFailure("no element \"\(token)\"")
            }
            try array[index].descend(rest, leaf: leaf, body)
        } else {
            throw PatchStepFailure("\"\(token)\" is inside a \(typeName), not a container")
        }
    }

    /// The object payload, leaving `null` behind; `nil` (and `self` unchanged) for other kinds.
    private mutating func takeObject() -> JSONObject? {
        guard case .object(let object) = self else { return nil }
        self = .null
        return object
    }

    /// The array payload, leaving `null` behind; `nil` (and `self` unchanged) for other kinds.
    private mutating func takeArray() -> [JSONValue]? {
        guard case .array(let array) = self else { return nil }
        self = .null
        return array
    }

    private mutating func setChild(_ token: String, to value: JSONValue, inserting: Bool) throws(PatchStepFailure) {
        if var object = takeObject() {
            object[token] = value
            self = .object(object)
        } else if var array = takeArray() {
            defer { self = .array(array) }
            guard let index = Self.arrayIndex(token, count: array.count, allowEnd: inserting) else {
                throw PatchStepFailure("array index \"\(token)\" is out of range")
            }
            if inserting { array.insert(value, at: index) } else { array[index] = value }
        } else {
            throw PatchStepFailure("the parent is a \(typeName), not a container")
        }
    }

    private mutating func removeChild(_ token: String) throws(PatchStepFailure) -> JSONValue {
        if var object = takeObject() {
            defer { self = .object(object) }
            guard let existing = object[token] else { throw PatchStepFailure("no member \"\(token)\"") }
            object[token] = nil
            return existing
        } else if var array = takeArray() {
            defer { self = .array(array) }
            guard let index = Self.arrayIndex(token, count: array.count, allowEnd: false) else {
                throw PatchStepFailure("array index \"\(token)\" is out of range")
            }
            return array.remove(at: index)
        } else {
            throw PatchStepFailure("the parent is a \(typeName), not a container")
        }
    }

    /// An RFC 6901 array index: digits without leading zeros, or `-` (the end) where allowed.
    static func arrayIndex(_ token: String, count: Int, allowEnd: Bool) -> Int? {
        if token == "-" { return allowEnd ? count : nil }
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            token == "0" || !token.hasPrefix("0"), token.utf8.count <= 18, let index = Int(token)
        else { return nil }
        return index < count || (allowEnd && index == count) ? index : nil
    }
}
