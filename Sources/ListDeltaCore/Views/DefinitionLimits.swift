/// Bounds a view's or a live query's definition must respect, so that evaluating it over an item costs no more
/// than reading the item (docs/configuration.md: `maxConditions`, `maxSortKeys`, `maxInValues`, `maxValueBytes`).
public struct DefinitionLimits: Sendable, Equatable {
    /// The most conditions in `where`. The default is 32.
    public var maximumConditions = 32
    /// The most keys in `sort`. The default is 8.
    public var maximumSortKeys = 8
    /// The most elements of an `in` condition's array. The default is 1,000.
    public var maximumInValues = 1_000
    /// The most bytes of a condition's value as compact JSON (for `in`, of each element), of a path's text, and of
    /// a `contains` or `prefix` string. The default is 1,024.
    public var maximumValueBytes = 1_024
    /// The smallest `limit`. The default is 1: a view or query that may hold no item is refused.
    public var minimumLimit = 1

    /// The defaults.
    public init() {}

    /// No bounds: for definitions already stored, which were checked when they were written.
    public static let unlimited: DefinitionLimits = {
        var limits = DefinitionLimits()
        limits.maximumConditions = .max
        limits.maximumSortKeys = .max
        limits.maximumInValues = .max
        limits.maximumValueBytes = .max
        limits.minimumLimit = 0  // a release before offset accepted `limit: 0`
        return limits
    }()
}
