public import Foundation
public import ListDeltaCore

/// A list view without UIKit: it keeps the identities of the items it shows, applies batches as `UICollectionView`
/// does, and fails loudly where UIKit would raise "Invalid update".
///
/// At the end of each batch it asks `dataProvider` for the new state (as UIKit asks its data source), checks the
/// batch against `BatchRules`, then moves its own cells by the batch and compares them with the data source: a
/// batch UIKit would accept but that leaves a wrong item on screen is reported too. Every violation goes to
/// `violations` and to `onViolation` (a test passes `Issue.record`); after one, the view reloads, as an app would
/// have to.
@MainActor
public final class SimulatedListView: BatchUpdatingView {
    /// A batch UIKit would refuse, or one that leaves the view showing something the data source does not have.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        /// Which of the two.
        public enum Kind: Sendable, Equatable {
            /// UIKit raises `NSInternalInconsistencyException`.
            case invalidUpdate
            /// UIKit accepts the batch, but the cells shown differ from the data source.
            case wrongContent
        }

        public var kind: Kind
        public var message: String
        public var description: String { "\(kind == .invalidUpdate ? "Invalid update" : "Wrong content"): \(message)" }
    }

    /// The state the view asks for at the end of each batch and on `reloadData()`.
    public var dataProvider: (@MainActor () -> any DataProvider)?
    /// Called with each violation as it is found.
    public var onViolation: (@MainActor (Violation) -> Void)?
    /// Every violation so far.
    public private(set) var violations: [Violation] = []
    /// The item ids the view shows, section by section.
    public private(set) var shownItems: [[String]] = []
    /// The section ids the view shows.
    public private(set) var shownSections: [String] = []
    /// Counters: batches performed, reloads, items reconfigured, sections reloaded.
    public private(set) var batchCount = 0, reloadCount = 0, reconfiguredCount = 0, reloadedSectionCount = 0

    private var pending: ReceivedBatch?

    /// An empty view; set `dataProvider`, then `reloadData()`.
    public init() {}

    public func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)?) {
        guard pending == nil else {
            report(.invalidUpdate, "performBatchUpdates called inside another batch")
            updates?()
            return
        }
        let performed = runBatch { updates?() }
        completion?(performed)
    }

    public func deleteSections(_ sections: IndexSet) { record { $0.deletedSections += sections } }
    public func insertSections(_ sections: IndexSet) { record { $0.insertedSections += sections } }
    public func moveSection(_ section: Int, toSection newSection: Int) {
        record { $0.movedSections.append(Move(from: section, to: newSection)) }
    }
    public func deleteItems(at indexPaths: [IndexPath]) { record { $0.deletedItems += indexPaths } }
    public func insertItems(at indexPaths: [IndexPath]) { record { $0.insertedItems += indexPaths } }
    public func moveItem(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        record { $0.movedItems.append(Move(from: indexPath, to: newIndexPath)) }
    }

    /// Inside a batch, a reload of old paths; outside, paths that must exist in what the view shows.
    public func reconfigureItems(at indexPaths: [IndexPath]) {
        if pending != nil {
            pending?.reloadedItems += indexPaths
            return
        }
        let counts = shownItems.map(\.count)
        for path in indexPaths where !BatchRules.exists(path, in: counts) {
            report(.invalidUpdate, "attempt to reconfigure item \(BatchRules.describe(path)), which the view does not show")
        }
        reconfiguredCount += indexPaths.count
    }

    /// Inside a batch, a reload of old indexes; outside, sections that must exist in what the view shows.
    public func reloadSections(_ sections: IndexSet) {
        if pending != nil {
            pending?.reloadedSections += sections
            return
        }
        for section in sections where !shownSections.indices.contains(section) {
            report(.invalidUpdate, "attempt to reload section \(section), but the view shows only \(shownSections.count) sections")
        }
        reloadedSectionCount += sections.count
    }

    public func reloadData() {
        reloadCount += 1
        (shownSections, shownItems) = Self.state(of: dataProvider?())
    }

    // A call outside performBatchUpdates is a batch of its own, as in UIKit.
    private func record(_ operation: (inout ReceivedBatch) -> Void) {
        if pending != nil {
            operation(&pending!)
        } else {
            _ = runBatch { operation(&pending!) }
        }
    }

    // Collects the operations `fill` makes into one batch and finishes it.
    private func runBatch(_ fill: () -> Void) -> Bool {
        pending = ReceivedBatch()
        fill()
        let batch = pending ?? ReceivedBatch()
        pending = nil
        batchCount += 1
        return finish(batch)
    }

    // Checks `batch` against the rules and the data source; true when the view could perform it.
    private func finish(_ batch: ReceivedBatch) -> Bool {
        let provider = dataProvider?()
        let (newSections, newItems) = Self.state(of: provider)
        let broken = BatchRules.violations(of: batch, before: shownItems.map(\.count), after: newItems.map(\.count))
        guard broken.isEmpty else {
            for message in broken { report(.invalidUpdate, message) }
            (shownSections, shownItems) = (newSections, newItems)
            return false
        }
        let moved = Self.perform(batch, on: (shownSections, shownItems), taking: (newSections, newItems))
        if moved.sections != newSections || moved.items != newItems {
            report(.wrongContent, Self.firstDifference(shown: moved, expected: (newSections, newItems)))
        }
        (shownSections, shownItems) = (newSections, newItems)
        return true
    }

    private func report(_ kind: Violation.Kind, _ message: String) {
        let violation = Violation(kind: kind, message: message)
        violations.append(violation)
        onViolation?(violation)
    }

    private static func state(of provider: (any DataProvider)?) -> (sections: [String], items: [[String]]) {
        guard let provider else { return ([], []) }
        let sections = (0..<provider.numberOfSections).map { provider.header(forSection: $0).id }
        let items = (0..<provider.numberOfSections).map { section in
            (0..<provider.numberOfItems(inSection: section)).map { provider.item(at: ItemPath(section: section, item: $0)).id }
        }
        return (sections, items)
    }

    /// Where the view's cells end up after `batch`: the old cells moved and deleted, inserted ones taken from the
    /// data source, through the core's replica (the normative procedure).
    private static func perform(
        _ batch: ReceivedBatch, on old: (sections: [String], items: [[String]]),
        taking new: (sections: [String], items: [[String]])
    ) -> (sections: [String], items: [[String]]) {
        let document = ListDocument(id: "view", sections: zip(old.sections, old.items).map { section, items in
            ListSection(id: section, items: items.map { ListItem(id: $0) })
        })
        var replica = ReplicaTarget(document: document)
        replica.beginUpdates()
        replica.deleteSections(batch.deletedSections)
        replica.insertSections(batch.insertedSections.map { index in
            SectionInsertion(at: index, section: ListSection(id: new.sections[index], items: new.items[index].map { ListItem(id: $0) }))
        })
        for move in batch.movedSections { replica.moveSection(from: move.from, to: move.to) }
        replica.deleteItems(at: batch.deletedItems.compactMap(ItemPath.init))
        replica.insertItems(batch.insertedItems.compactMap(ItemPath.init).map { path in
            ItemInsertion(at: path, item: ListItem(id: new.items[path.section][path.item]))
        })
        for move in batch.movedItems {
            if let from = ItemPath(move.from), let to = ItemPath(move.to) { replica.moveItem(from: from, to: to) }
        }
        guard (try? replica.endUpdates()) != nil else { return ([], []) }
        return (replica.document.sections.map(\.id), replica.document.sections.map { $0.items.map(\.id) })
    }

    private static func firstDifference(
        shown: (sections: [String], items: [[String]]), expected: (sections: [String], items: [[String]])
    ) -> String {
        if shown.sections != expected.sections {
            return "the view shows sections \(shown.sections) where the data source has \(expected.sections)"
        }
        for (section, items) in shown.items.enumerated() where items != expected.items[section] {
            return "section \(section): the view shows \(items) where the data source has \(expected.items[section])"
        }
        return "the view's cells differ from the data source"
    }
}
