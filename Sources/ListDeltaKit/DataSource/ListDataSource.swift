public import ListDeltaCore

/// Answers a list view's questions from the document a follower holds: the number of sections, the items per
/// section, the item at an index path, titles, section index titles, and the cell identifier for an item.
///
/// It is the client side of the server's one read protocol: it conforms to `DataProvider`, so the code that reads
/// a list on the server reads it here too. A value type: keep the one a view shows, replace it with `apply(_:)`.
public struct ListDataSource: DataProvider, Sendable {
    /// The document answered from.
    public private(set) var document: ListDocument
    /// Resolves cell identifiers and view models.
    public var cells: CellRegistry

    /// A data source for `document` (by default an empty list at revision 0).
    public init(document: ListDocument = .empty(id: ""), cells: CellRegistry = CellRegistry()) {
        self.document = document
        self.cells = cells
    }

    /// Takes the document an update leads to.
    public mutating func apply(_ update: ListUpdate) {
        document = update.document
    }

    /// The revision answered from.
    public var revision: Int { document.revision }

    // MARK: DataProvider

    public var kind: ListKind { document.kind }
    public var numberOfSections: Int { document.sections.count }

    /// The number of items in `section`; 0 for a section that does not exist.
    public func numberOfItems(inSection section: Int) -> Int {
        document.sections.indices.contains(section) ? document.sections[section].items.count : 0
    }

    /// The item at `path`. A view asks only for paths it was told exist; use `itemIfPresent(at:)` otherwise.
    public func item(at path: ItemPath) -> ListItem {
        document.sections[path.section].items[path.item]
    }

    public func header(forSection section: Int) -> SectionHeader {
        document.sections[section].header
    }

    /// The item at `path`, or `nil` when there is none.
    public func itemIfPresent(at path: ItemPath) -> ListItem? {
        guard document.sections.indices.contains(path.section),
              document.sections[path.section].items.indices.contains(path.item)
        else { return nil }
        return document.sections[path.section].items[path.item]
    }

    /// The reuse identifier of the cell that shows the item at `path` (see `CellRegistry`).
    public func cellIdentifier(at path: ItemPath) -> String {
        cells.cellIdentifier(for: item(at: path), in: document)
    }

    /// The item at `path` decoded as the view model registered for its `type`, or `nil` when none is.
    /// - Throws: the decoder's error when the model does not decode.
    public func viewModel(at path: ItemPath) throws -> (any ListViewModel)? {
        try cells.viewModel(for: item(at: path))
    }
}
