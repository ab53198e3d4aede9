public import Foundation
public import ListDeltaCore

/// A view that performs batch updates as `UICollectionView` and `UITableView` do: the small part of their
/// interface a batch diff needs, with `UICollectionView`'s names and signatures.
///
/// `UICollectionView` conforms as it is and `UITableView` through row-named wrappers (in a file compiled only
/// where UIKit exists); `SimulatedListView` conforms on every platform and enforces UIKit's rules for one batch.
///
/// Inside `performBatchUpdates`, deleted sections and index paths (and move sources) count in the state before
/// the batch, inserted ones (and move targets) in the state after; at the end of the batch the view asks its data
/// source for the new counts, which must agree with the operations.
@MainActor
public protocol BatchUpdatingView: AnyObject {
    /// Runs `updates` as one batch, then animates it; `completion` is told whether the animations finished.
    func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)?)
    /// Deletes sections (old indexes).
    func deleteSections(_ sections: IndexSet)
    /// Inserts sections (new indexes).
    func insertSections(_ sections: IndexSet)
    /// Moves a section from an old index to a new one.
    func moveSection(_ section: Int, toSection newSection: Int)
    /// Deletes items (old index paths).
    func deleteItems(at indexPaths: [IndexPath])
    /// Inserts items (new index paths).
    func insertItems(at indexPaths: [IndexPath])
    /// Moves an item from an old index path to a new one.
    func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath)
    /// Updates the cells of items in place, without replacing them.
    func reconfigureItems(at indexPaths: [IndexPath])
    /// Reloads sections (their headers and cells).
    func reloadSections(_ sections: IndexSet)
    /// Reloads everything from the data source.
    func reloadData()
}

extension IndexPath {
    /// The index path `[section, item]` of `path` (UIKit's `IndexPath(item:section:)`, which Linux lacks).
    public init(_ path: ItemPath) {
        self.init(indexes: [path.section, path.item])
    }
}

extension ItemPath {
    /// The path of a two-index `IndexPath`, or `nil` for any other length.
    public init?(_ indexPath: IndexPath) {
        guard indexPath.count == 2 else { return nil }
        self.init(section: indexPath[0], item: indexPath[1])
    }
}
