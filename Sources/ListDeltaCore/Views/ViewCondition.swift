/// A comparison operator of a view's `where` condition (docs/api.md, Views).
public enum ViewOperator: String, Sendable, CaseIterable {
    /// JSON equality (numbers by value, objects without regard to key order).
    case eq
    /// Not JSON-equal; also true when the path is not there.
    case ne
    /// Less than: both numbers (by value) or both strings (by Unicode code points).
    case lt
    /// Less than or equal, as `lt`.
    case lte
    /// Greater than, as `lt`.
    case gt
    /// Greater than or equal, as `lt`.
    case gte
    /// Equal to one of the elements of `value` (an array).
    case `in`
    /// A string holding `value` (a string) as a substring, or an array holding an element equal to `value`.
    case contains
    /// A string starting with `value` (a string).
    case prefix
    /// Whether the path is there (`value` true) or not (`value` false).
    case exists
}

/// One condition of a view's `where`: `{"path", "op", "value"}`.
///
/// Its operand is prepared once, when the condition is made, so that testing an item never costs more than reading
/// the item's value: an `in` array becomes a hash set, a `contains` needle a substring search.
public struct ViewCondition: Sendable, Equatable {
    /// Where the compared value is: `/section`, or a pointer into the item starting with `/id`, `/type`, `/cell`
    /// or `/model`.
    public var path: JSONPointer
    /// The comparison.
    public var op: ViewOperator
    /// The operand (its JSON type already checked against `op` when read from a definition).
    public var value: JSONValue

    /// The operand, prepared for its operator.
    private let prepared: PreparedOperand

    /// What a condition's operand becomes to be tested fast.
    private enum PreparedOperand: Sendable {
        case asGiven
        /// `in`: the array's elements, by JSON equality.
        case members(Set<HashableJSON>)
        /// `contains` of a string: the needle's search.
        case needle(SubstringSearch)
    }

    /// Creates a condition; the caller guarantees that `path` and `value` suit `op`.
    /// - Complexity: O(*s*) in the size of `value`.
    public init(path: JSONPointer, op: ViewOperator, value: JSONValue) {
        self.path = path
        self.op = op
        self.value = value
        switch (op, value) {
        case (.in, .array(let elements)): prepared = .members(Set(elements.lazy.map(HashableJSON.init)))
        case (.contains, .string(let needle)): prepared = .needle(SubstringSearch(needle))
        default: prepared = .asGiven
        }
    }

    public static func == (lhs: ViewCondition, rhs: ViewCondition) -> Bool {
        lhs.path == rhs.path && lhs.op == rhs.op && lhs.value == rhs.value
    }

    /// Whether the condition holds for `item`, held by the base section with id `section`.
    /// - Complexity: O(*d* + *s*) for a path of *d* tokens and the sizes *s* of the item's compared value and (for
    ///   `eq`, `ne` and the orderings) of the operand; `in` is one hash lookup, `contains` one pass over the text.
    public func holds(for item: ListItem, section: String) -> Bool {
        guard let found = ViewPath.resolve(path, in: item, section: section) else {
            switch op {
            case .ne: return true
            case .exists: return value == .bool(false)
            default: return false
            }
        }
        switch op {
        case .eq: return found == value
        case .ne: return found != value
        case .lt: return Self.order(found, value).map { $0 < 0 } ?? false
        case .lte: return Self.order(found, value).map { $0 <= 0 } ?? false
        case .gt: return Self.order(found, value).map { $0 > 0 } ?? false
        case .gte: return Self.order(found, value).map { $0 >= 0 } ?? false
        case .in:
            guard case .members(let members) = prepared else { return false }
            return members.contains(HashableJSON(found))
        case .contains:
            switch (found, prepared) {
            case let (.string(text), .needle(search)): return search.occurs(in: text)
            case let (.array(elements), _): return elements.contains(value)
            default: return false
            }
        case .prefix:
            guard case let (.string(text), .string(start)) = (found, value) else { return false }
            return text.utf8.starts(with: start.utf8)
        case .exists: return value == .bool(true)
        }
    }

    /// -1, 0 or 1 when both are numbers (by value) or both strings (by UTF-8 bytes, which is code point order);
    /// `nil` otherwise.
    static func order(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case let (.number(a), .number(b)):
            let x = a.value, y = b.value
            return x < y ? -1 : (x > y ? 1 : 0)
        case let (.string(a), .string(b)): return compareUTF8(a, b)
        default: return nil
        }
    }

    /// Compares two strings by their UTF-8 bytes (the order of their Unicode code points, without normalization).
    static func compareUTF8(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
