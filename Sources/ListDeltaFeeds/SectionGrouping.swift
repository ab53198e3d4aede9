/// How a feed's entries are arranged into a list.
public enum SectionGrouping: String, Sendable, CaseIterable {
    /// One flat list (`"kind":"array"`), in the feed's order.
    case none
    /// One section per UTC day of publication, newest day first, undated entries last.
    case day
    /// One section per entry's first category, in order of first appearance, uncategorized entries last.
    case category
}
