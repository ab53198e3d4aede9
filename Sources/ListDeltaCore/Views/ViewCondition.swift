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
public struct ViewCondition: Sendable, Equatable {
    /// Where the compared value is: `/section`, or a pointer into the item starting with `/id`, `/type`, `/cell`
    /// or `/model`.
    public var path: JSONPointer
    /// The comparison.
    public var op: ViewOperator
    /// The operand (its JSON type already checked against `op` when read from a definition).
    public var value: JSONValue

    /// Creates a condition; the caller guarantees that `path` and `value` suit `op`.
    public init(path: JSONPointer, op: ViewOperator, value: JSONValue) {
        self.path = path
        self.op = op
        self.value = value
    }

    /// Whether the condition holds for `item`, held by the base section with id `section`.
    /// - Complexity: O(*d* + *s*) for a path of *d* tokens and the sizes *s* of the compared values.
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
        case .in: return value.arrayValue?.contains(found) ?? false
        case .contains:
            switch (found, value) {
            case let (.string(text), .string(part)): return Self.bytes(of: text, contain: part)
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

    /// Whether `text` holds `part` as a run of UTF-8 bytes.
    static func bytes(of text: String, contain part: String) -> Bool {
        let haystack = Array(text.utf8), needle = Array(part.utf8)
        if needle.isEmpty { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
