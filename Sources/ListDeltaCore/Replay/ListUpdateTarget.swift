/// Something that shows a list and can perform batch updates on it: a `UICollectionView` or `UITableView`
/// adapter, a web page, or the in-memory `ReplicaTarget`.
///
/// Calls between `beginUpdates()` and `endUpdates()` form one batch with UIKit's semantics: deletions and move
/// sources count in the old state, insertions and move targets in the new one, whatever the call order.
/// Header and content updates come after the batch, at new positions (UIKit's reconfigure).
public protocol ListUpdateTarget {
    /// The error the target reports when a batch does not fit what it shows.
    associatedtype Failure: Error

    /// Opens a batch.
    mutating func beginUpdates()
    /// Deletes sections at old indexes.
    mutating func deleteSections(_ indexes: [Int])
    /// Inserts sections, with their items, at new indexes.
    mutating func insertSections(_ insertions: [SectionInsertion])
    /// Moves a section from an old index to a new one.
    mutating func moveSection(from: Int, to: Int)
    /// Deletes items at old paths.
    mutating func deleteItems(at paths: [ItemPath])
    /// Inserts items at new paths.
    mutating func insertItems(_ insertions: [ItemInsertion])
    /// Moves an item from an old path to a new one.
    mutating func moveItem(from: ItemPath, to: ItemPath)
    /// Closes and performs the batch.
    mutating func endUpdates() throws(Failure)
    /// Replaces section headers at new indexes (after the batch).
    mutating func updateSectionHeaders(_ updates: [SectionUpdate]) throws(Failure)
    /// Reconfigures items at new paths with their new content (after the batch).
    mutating func reconfigureItems(_ updates: [ItemUpdate]) throws(Failure)
}

extension ListDiff {
    /// Drives `target` through this diff in UIKit's order: one batch of section deletes, inserts and moves and
    /// item deletes, inserts and moves; then header updates and item reconfigures.
    /// - Throws: what the target throws.
    /// - Complexity: O(*k*) calls for *k* operations, plus the target's own work.
    public func perform<Target: ListUpdateTarget>(on target: inout Target) throws(Target.Failure) {
        target.beginUpdates()
        if !sections.deleted.isEmpty { target.deleteSections(sections.deleted) }
        if !sections.inserted.isEmpty { target.insertSections(sections.inserted) }
        for move in sections.moved { target.moveSection(from: move.from, to: move.to) }
        if !items.deleted.isEmpty { target.deleteItems(at: items.deleted) }
        if !items.inserted.isEmpty { target.insertItems(items.inserted) }
        for move in items.moved { target.moveItem(from: move.from, to: move.to) }
        try target.endUpdates()
        if !sections.updated.isEmpty { try target.updateSectionHeaders(sections.updated) }
        if !items.updated.isEmpty { try target.reconfigureItems(items.updated) }
    }

    /// The document this diff leads to from `document`, by the procedure of docs/api.md (Applying a batch diff).
    ///
    /// `kind` and `cells` are not part of a batch diff; they are kept from `document`.
    /// - Throws: `DiffApplicationError` when the diff does not fit the document (its `counts` or indexes).
    /// - Complexity: O(*n* + *k* log *k*) for *n* items and *k* operations.
    public func apply(to document: consuming ListDocument) throws(DiffApplicationError) -> ListDocument {
        try check(against: document)
        var replica = ReplicaTarget(document: consume document)
        try perform(on: &replica)
        replica.document.revision = to
        return replica.document
    }
}
