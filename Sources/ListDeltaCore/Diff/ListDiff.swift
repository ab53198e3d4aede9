/// A move of a section (indexes) or an item (paths): `from` counts in the old document, `to` in the new.
public struct Move<Position: Sendable & Hashable>: Sendable, Hashable {
    /// Where it was, in the old document.
    public var from: Position
    /// Where it goes, in the new document.
    public var to: Position

    /// Creates a move.
    public init(from: Position, to: Position) {
        self.from = from
        self.to = to
    }
}

/// A section inserted at `at` (new document), with all its items.
public struct SectionInsertion: Sendable, Equatable {
    /// The index in the new document.
    public var at: Int
    /// The whole section.
    public var section: ListSection

    public init(at: Int, section: ListSection) {
        self.at = at
        self.section = section
    }
}

/// A section whose header (title or index title) changed, at `at` in the new document.
public struct SectionUpdate: Sendable, Equatable {
    /// The index in the new document.
    public var at: Int
    /// The new header.
    public var header: SectionHeader

    public init(at: Int, header: SectionHeader) {
        self.at = at
        self.header = header
    }
}

/// An item inserted at `at` (new document).
public struct ItemInsertion: Sendable, Equatable {
    /// The path in the new document.
    public var at: ItemPath
    /// The item.
    public var item: ListItem

    public init(at: ItemPath, item: ListItem) {
        self.at = at
        self.item = item
    }
}

/// An item whose content changed, at `at` in the new document.
public struct ItemUpdate: Sendable, Equatable {
    /// The path in the new document.
    public var at: ItemPath
    /// The new item.
    public var item: ListItem

    public init(at: ItemPath, item: ListItem) {
        self.at = at
        self.item = item
    }
}

/// The section operations of a batch diff.
public struct SectionChanges: Sendable, Equatable {
    /// Old indexes, ascending.
    public var deleted: [Int] = []
    /// Sorted by `at`.
    public var inserted: [SectionInsertion] = []
    /// Sorted by `to`.
    public var moved: [Move<Int>] = []
    /// Sorted by `at`.
    public var updated: [SectionUpdate] = []

    public init() {}
}

/// The item operations of a batch diff.
public struct ItemChanges: Sendable, Equatable {
    /// Old paths, ascending.
    public var deleted: [ItemPath] = []
    /// Sorted by `at`.
    public var inserted: [ItemInsertion] = []
    /// Sorted by `to`.
    public var moved: [Move<ItemPath>] = []
    /// Sorted by `at`.
    public var updated: [ItemUpdate] = []

    public init() {}
}

/// The batch diff of docs/api.md: the updates a `UICollectionView` needs in one `performBatchUpdates`, followed by
/// a reconfigure of updated items.
///
/// Deleted indexes and move sources count in the old document; inserted indexes, move targets and updates in
/// the new one. Build one with `ListDiff(from:to:)`; apply one with `apply(to:)` or drive any
/// `ListUpdateTarget` with `perform(on:)`.
public struct ListDiff: Sendable, Equatable {
    /// The list id.
    public var listID: String
    /// The revision the diff starts from.
    public var from: Int
    /// The revision the diff leads to.
    public var to: Int
    /// Section operations.
    public var sections = SectionChanges()
    /// Item operations.
    public var items = ItemChanges()
    /// Item count of each section before.
    public var fromCounts: [Int] = []
    /// Item count of each section after.
    public var toCounts: [Int] = []

    /// An empty diff between two revisions with the given section counts.
    public init(listID: String, from: Int, to: Int, fromCounts: [Int] = [], toCounts: [Int] = []) {
        self.listID = listID
        self.from = from
        self.to = to
        self.fromCounts = fromCounts
        self.toCounts = toCounts
    }

    /// `true` when the diff changes no section and no item.
    public var isEmpty: Bool {
        sections == SectionChanges() && items == ItemChanges()
    }

    /// The number of operations: a rough size for logs and metrics.
    public var operationCount: Int {
        sections.deleted.count + sections.inserted.count + sections.moved.count + sections.updated.count
            + items.deleted.count + items.inserted.count + items.moved.count + items.updated.count
    }
}
