/// A JSON object: unique keys in insertion order.
///
/// Lookups are linear, which is the fastest choice for the small objects of list documents; equality ignores
/// key order.
public struct JSONObject: Sendable {
    /// One member: a key and its value.
    public struct Member: Sendable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: JSONValue
    }

    /// The members in order, in one array: one allocation for the members however many there are (long keys and
    /// nested values have their own).
    private var members: [Member] = []

    /// Creates an empty object.
    public init() {}

    /// Creates an object of members whose keys the caller guarantees to be unique.
    init(uniqueMembers: [Member]) {
        members = uniqueMembers
    }

    /// The number of members.
    public var count: Int { members.count }

    /// The number of members the object has room for without allocating.
    var capacity: Int { members.capacity }

    /// The members in order.
    public var entries: LazyMapSequence<[Member], (key: String, value: JSONValue)> {
        members.lazy.map { ($0.key, $0.value) }
    }

    /// The keys, in order.
    /// - Complexity: O(*k*): a new array.
    public var keys: [String] { members.map(\.key) }

    /// The values, in the order of their keys.
    /// - Complexity: O(*k*): a new array.
    public var values: [JSONValue] { members.map(\.value) }

    /// The position of `key`, or `nil`.
    /// - Complexity: O(*k*) for *k* keys.
    public func index(of key: String) -> Int? {
        members.firstIndex { $0.key == key }
    }

    /// The value for `key`; setting `nil` removes the member, setting a new key appends it.
    /// - Complexity: O(*k*) for *k* keys.
    public subscript(key: String) -> JSONValue? {
        get { index(of: key).map { members[$0].value } }
        set {
            if let position = index(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Appends a member without checking for an existing key; the caller guarantees uniqueness.
    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    /// Replaces the value at `position` in place.
    mutating func setValue(_ value: JSONValue, at position: Int) {
        members[position].value = value
    }

    /// Changes the value at `position` in place without copying it.
    mutating func modifyValue<E: Error>(at position: Int, _ body: (inout JSONValue) throws(E) -> Void) throws(E) {
        try body(&members[position].value)
    }

    /// Whether the keys are the same, in the same order.
    fileprivate func hasKeysInOrder(of other: JSONObject) -> Bool {
        guard members.count == other.members.count else { return false }
        for index in members.indices where members[index].key != other.members[index].key { return false }
        return true
    }

    /// The positions of the members in the order of their keys.
    fileprivate var positionsByKey: [Int] {
        members.indices.sorted { members[$0].key < members[$1].key }
    }
}

extension JSONObject: Equatable {
    /// Members compare as a set: same keys with equal values, in any order.
    /// - Complexity: O(*k* log *k*) for *k* keys (O(*k*²) comparisons are avoided above eight keys).
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.hasKeysInOrder(of: rhs) {
            for index in lhs.members.indices where lhs.members[index].value != rhs.members[index].value { return false }
            return true
        }
        if lhs.count <= 8 {
            for member in lhs.members {
                guard let other = rhs[member.key], other == member.value else { return false }
            }
            return true
        }
        for (l, r) in zip(lhs.positionsByKey, rhs.positionsByKey) {
            guard lhs.members[l].key == rhs.members[r].key, lhs.members[l].value == rhs.members[r].value else { return false }
        }
        return true
    }
}
