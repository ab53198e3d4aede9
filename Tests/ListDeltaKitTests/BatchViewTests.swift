import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaKit

/// The batch adapter against the simulated UIKit view: every batch a diff makes is accepted, and batches broken
/// by hand are refused with UIKit's reasons.
@MainActor
@Suite struct BatchViewTests {
    /// A view and a binding showing `document`.
    func bound(_ document: ListDocument) -> (SimulatedListView, ListBinding<SimulatedListView>) {
        let view = SimulatedListView()
        let binding = ListBinding(view: view)
        view.dataProvider = { binding.dataSource }
        binding.apply(ListUpdate(document: document, change: .initial))
        return (view, binding)
    }

    @Test func everyBatchOfAThousandRandomDocumentPairsIsAccepted() {
        var random = RandomDocuments(seed: 2026)
        var accepted = 0
        for pair in 0..<1_000 {
            let old = random.document(revision: 1)
            let new = random.edit(old, intensity: Double(pair % 10) / 10 + 0.05)
            let (view, binding) = bound(old)
            view.onViolation = { Issue.record("pair \(pair): \($0)") }
            binding.apply(ListUpdate(document: new, change: .diff(ListDiff(from: old, to: new))))
            #expect(binding.batches == 1)
            #expect(view.shownSections == new.sections.map(\.id))
            #expect(view.shownItems == new.sections.map { $0.items.map(\.id) })
            if view.violations.isEmpty { accepted += 1 }
        }
        #expect(accepted == 1_000)
    }

    @Test func aBatchWithoutOneOfItsInsertsBreaksTheItemCount() {
        let old = Served.list(1, ["a", "b"]), new = Served.list(2, ["a", "x", "b", "y"])
        var batch = ViewBatch(ListDiff(from: old, to: new))
        #expect(batch.insertedItems == [IndexPath(indexes: [0, 1]), IndexPath(indexes: [0, 3])])
        batch.insertedItems.removeLast()
        let (view, binding) = bound(old)
        var dataSource = binding.dataSource
        view.dataProvider = { dataSource }
        view.perform(batch) { dataSource.apply(ListUpdate(document: new, change: .initial)) }
        #expect(view.violations.map(\.kind) == [.invalidUpdate])
        #expect(view.violations.first?.message.hasPrefix("invalid number of items in section 0: the number of items contained in an existing section after the update (4) must be equal to the number of items contained in that section before the update (2), plus or minus the number of items inserted or deleted from that section (1 inserted, 0 deleted)") == true)
    }

    @Test(arguments: [
        (ReceivedBatch.deleting([IndexPath(indexes: [0, 5])]), "attempt to delete item 5 in section 0, which only contains 3 items before the update"),
        (ReceivedBatch.deletingAndMoving, "attempt to perform a delete and a move from the same index path [0, 1]"),
        (ReceivedBatch.insertingAndMoving, "attempt to perform an insert and a move to the same index path [0, 0]"),
        (ReceivedBatch.reloadingAndMoving, "attempt to move and reload the same index path [0, 2]"),
        (ReceivedBatch.deletingAndReloading, "attempt to delete and reload the same index path [0, 0]"),
        (ReceivedBatch.movingTwice, "attempt to move item [0, 0] twice"),
        (ReceivedBatch.insertingSection, "invalid number of sections: the number of sections after the update (1) must equal the number before (1), plus or minus the number inserted or deleted (1 inserted, 0 deleted)"),
    ])
    func handBrokenBatchesAreRefused(batch: ReceivedBatch, reason: String) {
        let counts = [3]
        #expect(BatchRules.violations(of: batch, before: counts, after: counts.map { $0 + batch.insertedItems.count - batch.deletedItems.count }).contains(reason))
    }

    @Test func theRulesAcceptWhatTheyShouldAndCountMovesAcrossSections() {
        var batch = ReceivedBatch()
        batch.deletedSections = [0]
        batch.insertedSections = [1]
        batch.movedItems = [Move(from: IndexPath(indexes: [1, 0]), to: IndexPath(indexes: [0, 2]))]
        batch.deletedItems = [IndexPath(indexes: [2, 1])]
        // Old sections [2, 3, 2] → delete section 0, insert new section 1 (2 items); the item moves from old 1 to new 0
        // (old 1's place) within one section, old 2 (new 2) loses one.
        #expect(BatchRules.violations(of: batch, before: [2, 3, 2], after: [3, 2, 1]).isEmpty)
        #expect(BatchRules.violations(of: batch, before: [2, 3, 2], after: [3, 2, 2]).count == 1)
    }

    @Test func aBatchThatFitsTheCountsButShowsTheWrongItemsIsReported() {
        let old = Served.list(1, ["a", "b", "c"]), new = Served.list(2, ["c", "b", "a"])
        let (view, binding) = bound(old)
        var dataSource = binding.dataSource
        dataSource.apply(ListUpdate(document: new, change: .initial))
        view.dataProvider = { dataSource }
        view.performBatchUpdates({}, completion: nil)
        #expect(view.violations.map(\.kind) == [.wrongContent])
    }

    @Test func updatesThatDoNotStartFromWhatTheViewShowsReload() {
        let (view, binding) = bound(Served.list(1, ["a"]))
        let r3 = Served.list(3, ["b"])
        binding.apply(ListUpdate(document: r3, change: .diff(ListDiff(from: Served.list(2, ["z"]), to: r3))))
        #expect(binding.reloads == 2 && binding.batches == 0)
        #expect(view.shownItems == [["b"]])
        #expect(view.violations.isEmpty)
    }
}

extension ReceivedBatch {
    static func deleting(_ paths: [IndexPath]) -> ReceivedBatch {
        var batch = ReceivedBatch()
        batch.deletedItems = paths
        return batch
    }

    static var deletingAndMoving: ReceivedBatch {
        var batch = deleting([IndexPath(indexes: [0, 1])])
        batch.movedItems = [Move(from: IndexPath(indexes: [0, 1]), to: IndexPath(indexes: [0, 0]))]
        return batch
    }

    static var insertingAndMoving: ReceivedBatch {
        var batch = ReceivedBatch()
        batch.insertedItems = [IndexPath(indexes: [0, 0])]
        batch.deletedItems = [IndexPath(indexes: [0, 2])]
        batch.movedItems = [Move(from: IndexPath(indexes: [0, 1]), to: IndexPath(indexes: [0, 0]))]
        return batch
    }

    static var reloadingAndMoving: ReceivedBatch {
        var batch = ReceivedBatch()
        batch.movedItems = [Move(from: IndexPath(indexes: [0, 2]), to: IndexPath(indexes: [0, 0]))]
        batch.reloadedItems = [IndexPath(indexes: [0, 2])]
        return batch
    }

    static var deletingAndReloading: ReceivedBatch {
        var batch = deleting([IndexPath(indexes: [0, 0])])
        batch.reloadedItems = [IndexPath(indexes: [0, 0])]
        return batch
    }

    static var movingTwice: ReceivedBatch {
        var batch = ReceivedBatch()
        batch.movedItems = [Move(from: IndexPath(indexes: [0, 0]), to: IndexPath(indexes: [0, 1])), Move(from: IndexPath(indexes: [0, 0]), to: IndexPath(indexes: [0, 2]))]
        return batch
    }

    static var insertingSection: ReceivedBatch {
        var batch = ReceivedBatch()
        batch.insertedSections = [0]
        return batch
    }
}
