/// A JSON object: unique keys in insertion order.
///
/// Lookups are linear, which is the fastest choice for the small objects of list documents; equality ignores
/// key order.
public struct JSONObject: Sendable {
    /// The keys, in order.
    public private(set) var keys: [String] = []
    /// The values, parallel to `keys`.
    public private(set) var values: [JSONValue] = []

    /// Creates an empty object.
    public init() {}

    /// The number of members.
    public var count: Int { keys.count }

    /// The members in order.
    public var entries: Zip2Sequence<[String], [JSONValue]> { zip(keys, values) }

    /// The position of `key`, or `nil`.
    /// - Complexity: O(*k*) for *k* keys.
    public func index(of key: String) -> Int? {
        keys.firstIndex(of: key)
    }

    /// The value for `key`; setting `nil` removes the member, setting a new key appends it.
    /// - Complexity: O(*k*) for *k* keys.
    public subscript(key: String) -> JSONValue? {
        get { index(of: key).map { values[$0] } }
        set {
            if let position = index(of: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    keys.remove(at: position)
                    values.remove(at: position)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends a member without checking for an existing key; the caller guarantees uniqueness.
    /// Reserves room for `count` members.
    mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        keys.append(key)
        values.append(value)
    }

    /// Replaces the value at `position` in place.
    mutating func setValue(_ value: JSONValue, at position: Int) {
        values[position] = value
    }

    /// Changes the value at `position` in place without copying it.
    mutating func modifyValue<E: Error>(at position: Int, _ body: (inout JSONValue) throws(E) -> Void) throws(E) {
        try body(&values[position])
    }
}

extension JSONObject: Equatable {
    /// Members compare as a set: same keys with equal values, in any order.
    /// - Complexity: O(*k* log *k*) for *k* keys (O(*k*²) comparisons are avoided above eight keys).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.keys == rhs.keys { return lhs.values == rhs.values }
        if lhs.count <= 8 {
            for (key, value) in lhs.entries {
                guard let other = rhs[key], other == value else { return false }
            }
            return true
        }
        let left = lhs.keys.indices.sorted { lhs.keys[$0] < lhs.keys[$1] }
        let right = rhs.keys.indices.sorted { rhs.keys[$0] < rhs.keys[$1] }
        for (l, r) in zip(left, right) {
            guard lhs.keys[l] == rhs.keys[r], lhs.values[l] == rhs.values[r] else { return false }
        }
        return true
    }
}
