/// The position of an item: its section's index and its index in that section.
///
/// ListDelta's own type rather than Foundation's `IndexPath`, so the core needs no Foundation; it serialises as
/// the two-element array `[section, item]` of docs/api.md.
public struct ItemPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The item's index in its section.
    public var item: Int

    /// Creates a path.
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ItemPath, rhs: ItemPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    public var description: String { "[\(section), \(item)]" }

    /// `[section, item]`.
    public var jsonValue: JSONValue { .array([.number(JSONNumber(section)), .number(JSONNumber(item))]) }
}
