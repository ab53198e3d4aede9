/// One sort key's value for one item, reduced to what the order of docs/api.md looks at:
/// missing < null < false < true < numbers (by value) < strings (by code points) < arrays and objects (all equal).
enum ViewSortValue: Sendable {
    case missing
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case composite

    /// The sort value of a resolved path (`nil`: the path is not there).
    init(_ value: JSONValue?) {
        switch value {
        case nil: self = .missing
        case .null?: self = .null
        case .bool(let flag)?: self = .bool(flag)
        case .number(let number)?: self = .number(number.value)
        case .string(let text)?: self = .string(text)
        case .array?, .object?: self = .composite
        }
    }

    private var rank: Int {
        switch self {
        case .missing: 0
        case .null: 1
        case .bool(let flag): flag ? 3 : 2
        case .number: 4
        case .string: 5
        case .composite: 6
        }
    }

    /// -1, 0 or 1 in ascending order.
    /// - Complexity: O(1), or O(*n*) in the shorter string's length.
    static func compare(_ lhs: ViewSortValue, _ rhs: ViewSortValue) -> Int {
        switch (lhs, rhs) {
        case let (.number(a), .number(b)): return a < b ? -1 : (a > b ? 1 : 0)
        case let (.string(a), .string(b)): return ViewCondition.compareUTF8(a, b)
        default:
            let a = lhs.rank, b = rhs.rank
            return a < b ? -1 : (a > b ? 1 : 0)
        }
    }
}

extension ViewDefinition {
    /// The sort values of `item` (held by base section `section`) for each of `sort`'s keys.
    /// - Complexity: O(*k*·*d*) for *k* keys of depth *d*.
    func sortValues(of item: ListItem, section: String) -> [ViewSortValue] {
        sort.map { ViewSortValue(ViewPath.resolve($0.path, in: item, section: section)) }
    }

    /// Compares two items' sort values key by key, `desc` keys reversed; 0 when all keys tie.
    /// - Complexity: O(*k*) for *k* keys (plus string comparisons).
    func compareSortValues(_ lhs: [ViewSortValue], _ rhs: [ViewSortValue]) -> Int {
        for (index, key) in sort.enumerated() {
            let order = ViewSortValue.compare(lhs[index], rhs[index])
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }

    /// Whether every condition holds for `item` held by base section `section`.
    /// - Complexity: O(*c*) conditions (each as ``ViewCondition/holds(for:section:)``).
    func matches(_ item: ListItem, section: String) -> Bool {
        conditions.allSatisfy { $0.holds(for: item, section: section) }
    }
}
