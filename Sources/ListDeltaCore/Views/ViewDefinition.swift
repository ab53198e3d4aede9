/// How a view groups its items into sections (docs/api.md, Views: `sections`).
public enum ViewSections: Sendable, Equatable {
    /// Items stay in their base sections (ids, titles, index titles, order); empty ones are left out.
    case keep
    /// One section `main` holding all items (`kind` `array`).
    case none
    /// One section per distinct text of the value at the pointer (`kind` `sections`).
    case by(JSONPointer)
}

/// One sort key of a view: `{"path", "order"}`.
public struct ViewSortKey: Sendable, Equatable {
    /// The path of the sorted value (as a condition's path).
    public var path: JSONPointer
    /// `true` for `"desc"`: the whole value order reversed (missing last).
    public var descending: Bool

    /// Creates a key.
    public init(path: JSONPointer, descending: Bool = false) {
        self.path = path
        self.descending = descending
    }
}

/// A view's definition, validated: a list kept equal to a query over another list, its base (docs/api.md, Views).
///
/// Read one from a `PUT .../view` body with ``init(json:viewID:limits:)``, serve it with ``jsonValue``, compute the
/// view's document with ``evaluate(over:viewID:revision:limits:)`` or keep it up to date with a ``ViewIndex``.
public struct ViewDefinition: Sendable, Equatable {
    /// The base list's id (`of`).
    public var base: String
    /// The conditions that must all hold (`where`).
    public var conditions: [ViewCondition]
    /// The sort keys, the first key first; ties keep the base's order.
    public var sort: [ViewSortKey]
    /// How many matching items are skipped, after filtering and sorting, before ``limit`` is taken (`offset`).
    public var offset: Int
    /// The most items the view holds, resolved (the default is the configured items per list).
    public var limit: Int
    /// How items are grouped into sections.
    public var sections: ViewSections

    /// Creates a definition from parts the caller has already checked.
    public init(
        base: String, conditions: [ViewCondition] = [], sort: [ViewSortKey] = [], offset: Int = 0, limit: Int,
        sections: ViewSections = .keep
    ) {
        self.base = base
        self.conditions = conditions
        self.sort = sort
        self.offset = offset
        self.limit = limit
        self.sections = sections
    }

    /// The kind of the view's document given its base's kind (`nil`: the base is missing): the base's kind for
    /// `keep` (`sections` when the base is missing), `array` for `none`, `sections` for `by`.
    /// - Complexity: O(1).
    public func kind(ofBase baseKind: ListKind?) -> ListKind {
        switch sections {
        case .keep: baseKind ?? .sections
        case .none: .array
        case .by: .sections
        }
    }

    /// The ranks, among the matching items in view order, of the items the view shows: `offset..<offset + limit`.
    /// - Complexity: O(1).
    public var window: Range<Int> { offset..<(offset > Int.max - limit ? Int.max : offset + limit) }
}
