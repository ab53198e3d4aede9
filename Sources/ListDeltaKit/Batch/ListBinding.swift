import ListDeltaCore

/// Keeps a view and its data source in step with a follower: each update's batch is performed on the view, and
/// the data source takes the new document inside the batch, exactly when UIKit asks for the new counts.
///
/// ```swift
/// let binding = ListBinding(view: collectionView, dataSource: ListDataSource(cells: cells))
/// // the collection view's UICollectionViewDataSource answers from binding.dataSource
/// for await update in follower { binding.apply(update) }
/// ```
@MainActor
public final class ListBinding<View: BatchUpdatingView> {
    /// The view updated.
    public let view: View
    /// What the view shows: answer the view's data-source questions from it.
    public private(set) var dataSource: ListDataSource
    /// How many updates were performed as batches, and how many as reloads.
    public private(set) var batches = 0, reloads = 0

    /// Binds `view` to `dataSource`.
    public init(view: View, dataSource: ListDataSource = ListDataSource()) {
        self.view = view
        self.dataSource = dataSource
    }

    /// Shows `update` on the view: its batch diff when it carries one that starts from what the view shows, else
    /// (the first document, a reset, a diff from elsewhere) a reload.
    public func apply(_ update: ListUpdate) {
        if let diff = update.diff, diff.from == dataSource.revision, diff.fromCounts == dataSource.document.sectionCounts {
            view.perform(ViewBatch(diff)) { dataSource.apply(update) }
            batches += 1
        } else {
            dataSource.apply(update)
            view.reloadData()
            reloads += 1
        }
    }
}
