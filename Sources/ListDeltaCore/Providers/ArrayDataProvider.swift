/// The Array provider: one section, id `main`, like a flat array with an optional title.
public struct ArrayDataProvider: DataProvider {
    /// The id of the one section.
    public static let sectionID = "main"

    /// The one section's header.
    public let sectionHeader: SectionHeader
    /// The items, in order.
    public let items: [ListItem]

    /// The short form: a title and items; the index title is the title's first character (`nil` without a title).
    public init(title: String?, items: [ListItem]) {
        let indexTitle = title.flatMap { $0.first.map(String.init) }
        self.sectionHeader = SectionHeader(id: Self.sectionID, title: title, indexTitle: indexTitle)
        self.items = items
    }

    /// The long form: one section kept exactly as given.
    public init(section: ListSection) {
        self.sectionHeader = section.header
        self.items = section.items
    }

    public var kind: ListKind { .array }
    public var numberOfSections: Int { 1 }

    public func numberOfItems(inSection section: Int) -> Int {
        precondition(section == 0, "an array list has one section")
        return items.count
    }

    public func item(at path: ItemPath) -> ListItem {
        precondition(path.section == 0, "an array list has one section")
        return items[path.item]
    }

    public func header(forSection section: Int) -> SectionHeader {
        precondition(section == 0, "an array list has one section")
        return sectionHeader
    }
}
