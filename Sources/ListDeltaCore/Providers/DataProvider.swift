/// The one way ListDelta reads a list, whatever built it: the questions a list view asks its data source.
///
/// Providers are value types; a factory picks the provider that fits a write (`DataProviderFactory`), and
/// `makeDocument` turns any provider into the document that is stored and served.
public protocol DataProvider: Sendable {
    /// Which kind of list this provider builds.
    var kind: ListKind { get }
    /// The number of sections.
    var numberOfSections: Int { get }
    /// The number of items in `section`.
    func numberOfItems(inSection section: Int) -> Int
    /// The item at `path`.
    func item(at path: ItemPath) -> ListItem
    /// The header (id, title, index title) of `section`.
    func header(forSection section: Int) -> SectionHeader
}

extension DataProvider {
    /// The title of `section`, or `nil`.
    public func title(forSection section: Int) -> String? { header(forSection: section).title }

    /// The index titles of the sections in order, skipping sections without one and keeping duplicates.
    /// - Complexity: O(*s*) for *s* sections.
    public var sectionIndexTitles: [String] {
        (0..<numberOfSections).compactMap { header(forSection: $0).indexTitle }
    }

    /// The total number of items.
    public var numberOfItems: Int {
        (0..<numberOfSections).reduce(0) { $0 + numberOfItems(inSection: $1) }
    }

    /// The document this provider describes.
    /// - Complexity: O(*n*) for *n* items.
    public func makeDocument(id: String, revision: Int, cells: [String: String]?) -> ListDocument {
        let sections = (0..<numberOfSections).map { section in
            ListSection(
                header: header(forSection: section),
                items: (0..<numberOfItems(inSection: section)).map { item(at: ItemPath(section: section, item: $0)) }
            )
        }
        return ListDocument(id: id, kind: kind, revision: revision, cells: cells, sections: sections)
    }
}
