public import Foundation
public import ListDeltaCore

/// A batch diff in UIKit's vocabulary: the `IndexSet`s and `IndexPath`s of one `performBatchUpdates`, then the
/// sections to reload and the items to reconfigure after it.
///
/// Built by driving the core's `ListDiff.perform(on:)`, the one place that orders a diff's operations, so a view,
/// the in-memory replica and the printed batch of `listdelta-follow` all get the same calls.
public struct ViewBatch: ListUpdateTarget, Sendable, Equatable {
    public typealias Failure = Never

    /// Sections deleted (old indexes).
    public var deletedSections = IndexSet()
    /// Sections inserted (new indexes).
    public var insertedSections = IndexSet()
    /// Sections moved (old index to new index).
    public var movedSections: [Move<Int>] = []
    /// Items deleted (old index paths).
    public var deletedItems: [IndexPath] = []
    /// Items inserted (new index paths).
    public var insertedItems: [IndexPath] = []
    /// Items moved (old index path to new index path).
    public var movedItems: [Move<IndexPath>] = []
    /// Sections whose header changed, reloaded after the batch (new indexes).
    public var reloadedSections = IndexSet()
    /// Items whose content changed, reconfigured after the batch (new index paths).
    public var reconfiguredItems: [IndexPath] = []

    /// An empty batch.
    public init() {}

    /// The batch that performs `diff`.
    /// - Complexity: O(*k*) for *k* operations.
    public init(_ diff: ListDiff) {
        diff.perform(on: &self)
    }

    /// `true` when the batch changes nothing.
    public var isEmpty: Bool { self == ViewBatch() }

    // MARK: ListUpdateTarget

    public mutating func beginUpdates() {}
    public mutating func deleteSections(_ indexes: [Int]) { deletedSections.formUnion(IndexSet(indexes)) }
    public mutating func insertSections(_ insertions: [SectionInsertion]) {
        insertedSections.formUnion(IndexSet(insertions.map(\.at)))
    }
    public mutating func moveSection(from: Int, to: Int) { movedSections.append(Move(from: from, to: to)) }
    public mutating func deleteItems(at paths: [ItemPath]) { deletedItems += paths.map(IndexPath.init) }
    public mutating func insertItems(_ insertions: [ItemInsertion]) { insertedItems += insertions.map { IndexPath($0.at) } }
    public mutating func moveItem(from: ItemPath, to: ItemPath) {
        movedItems.append(Move(from: IndexPath(from), to: IndexPath(to)))
    }
    public mutating func endUpdates() {}
    public mutating func updateSectionHeaders(_ updates: [SectionUpdate]) {
        reloadedSections.formUnion(IndexSet(updates.map(\.at)))
    }
    public mutating func reconfigureItems(_ updates: [ItemUpdate]) { reconfiguredItems += updates.map { IndexPath($0.at) } }
}

extension BatchUpdatingView {
    /// Performs `batch`: one `performBatchUpdates` whose block first calls `commit` (so the data source answers
    /// the new state when the view asks at the end of the batch), then the deletes, inserts and moves; then the
    /// section reloads and the item reconfigures, at their new positions.
    public func perform(_ batch: ViewBatch, commit: () -> Void) {
        withoutActuallyEscaping(commit) { commit in
            performBatchUpdates({
                commit()
                if !batch.deletedSections.isEmpty { self.deleteSections(batch.deletedSections) }
                if !batch.insertedSections.isEmpty { self.insertSections(batch.insertedSections) }
                for move in batch.movedSections { self.moveSection(move.from, toSection: move.to) }
                if !batch.deletedItems.isEmpty { self.deleteItems(at: batch.deletedItems) }
                if !batch.insertedItems.isEmpty { self.insertItems(at: batch.insertedItems) }
                for move in batch.movedItems { self.moveItem(at: move.from, to: move.to) }
            }, completion: nil)
        }
        if !batch.reloadedSections.isEmpty { reloadSections(batch.reloadedSections) }
        if !batch.reconfiguredItems.isEmpty { reconfigureItems(at: batch.reconfiguredItems) }
    }
}
