/// The Section provider: any number of titled sections.
public struct SectionDataProvider: DataProvider {
    /// The sections, in order.
    public let sections: [ListSection]

    /// Creates a provider over `sections`.
    public init(sections: [ListSection]) {
        self.sections = sections
    }

    public var kind: ListKind { .sections }
    public var numberOfSections: Int { sections.count }
    public func numberOfItems(inSection section: Int) -> Int { sections[section].items.count }
    public func item(at path: ItemPath) -> ListItem { sections[path.section].items[path.item] }
    public func header(forSection section: Int) -> SectionHeader { sections[section].header }
}
