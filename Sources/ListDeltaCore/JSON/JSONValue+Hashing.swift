/// A JSON value as a set member or dictionary key, with JSON's equality (``JSONValue``'s `==`): numbers by value,
/// objects without regard to key order.
public struct HashableJSON: Hashable, Sendable {
    /// The value.
    public let value: JSONValue

    /// Wraps `value`.
    public init(_ value: JSONValue) { self.value = value }

    public static func == (lhs: HashableJSON, rhs: HashableJSON) -> Bool { lhs.value == rhs.value }

    /// Hashes what equality compares: a number's value, an object's members whatever their order.
    /// - Complexity: O(*n*) in the size of the value.
    public func hash(into hasher: inout Hasher) {
        Self.hash(value, into: &hasher)
    }

    private static func hash(_ value: JSONValue, into hasher: inout Hasher) {
        switch value {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let flag):
            hasher.combine(1 as UInt8)
            hasher.combine(flag)
        case .number(let number):
            hasher.combine(2 as UInt8)
            hasher.combine(number.value)
        case .string(let text):
            hasher.combine(3 as UInt8)
            hasher.combine(text)
        case .array(let elements):
            hasher.combine(4 as UInt8)
            hasher.combine(elements.count)
            for element in elements { hash(element, into: &hasher) }
        case .object(let object):
            hasher.combine(5 as UInt8)
            hasher.combine(object.count)
            // Members are hashed apart and summed, so their order does not count.
            var members = 0
            for (key, member) in object.entries {
                var memberHasher = Hasher()
                memberHasher.combine(key)
                hash(member, into: &memberHasher)
                members &+= memberHasher.finalize()
            }
            hasher.combine(members)
        }
    }
}
