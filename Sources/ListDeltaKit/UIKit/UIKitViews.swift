#if canImport(UIKit)
import UIKit

// The thin binding to UIKit, compiled only where UIKit exists. Everything it calls is UIKit's own batch API;
// everything it is called by (ViewBatch, ListBinding, the layouts) is built and tested on every platform.

/// `UICollectionView` already has every method of `BatchUpdatingView`, with the same names and signatures.
extension UICollectionView: BatchUpdatingView {}

/// `UITableView` names items rows and takes an animation: each call maps to its row-named twin.
extension UITableView: BatchUpdatingView {
    public func deleteSections(_ sections: IndexSet) { deleteSections(sections, with: .automatic) }
    public func insertSections(_ sections: IndexSet) { insertSections(sections, with: .automatic) }
    public func deleteItems(at indexPaths: [IndexPath]) { deleteRows(at: indexPaths, with: .automatic) }
    public func insertItems(at indexPaths: [IndexPath]) { insertRows(at: indexPaths, with: .automatic) }
    public func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) { moveRow(at: indexPath, to: newIndexPath) }
    public func reconfigureItems(at indexPaths: [IndexPath]) { reconfigureRows(at: indexPaths) }
    public func reloadSections(_ sections: IndexSet) { reloadSections(sections, with: .none) }
}

extension Placed where Target: UIView {
    /// Gives the view the frame the layout chose.
    @MainActor
    public func apply() {
        target.frame = frame
    }
}
#endif
