import ListDeltaCoreTestSupport
import ListDeltaPostgres
import ListDeltaStorage
import ListDeltaStoreTestSupport
import Synchronization
import Testing

/// A view on two instances of one database: what one store alone cannot show (the contract suite,
/// ListDeltaStoreContractTests, holds each store to the rest).
@Suite(.needsTestDatabase) struct PostgresViewStoreTests {
    /// A write of another instance moves the head this instance knows: the guarded append is decided again on the
    /// head the database returns, and still checks the view.
    @Test func aViewWriteAfterAnotherInstanceWrote() async throws {
        let instances = [try openPostgresStore(), try openPostgresStore()]
        defer { instances.forEach { $0.close() } }
        try await onOwnThread {
            let list = uniqueID("other")
            _ = try instances[0].attachView(list: list, base: "base", definition: "{}", maximumViews: .max)
            _ = try instances[0].append(RevisionWrite.create(list).forView(generation: 1, step: 0))
            _ = try instances[1].append(RevisionWrite.update(list, expected: 1).forView(generation: 1, step: 2))
            // Instance 0 knows revision 1; the database has 2.
            #expect(try instances[0].append(RevisionWrite.update(list, expected: 2).forView(generation: 1, step: 4)).revision == 3)
            #expect(storeError {
                _ = try instances[1].append(RevisionWrite.update(list, expected: 3).forView(generation: 1, step: 4))
            } == .superseded("the view is already at base step 4 (this write is for step 4)"))
            #expect(try instances[1].head(list)?.revision == 3)
            #expect(try instances[1].view(list)?.baseStep == 4)
            _ = try instances[0].detachView(list)
        }
    }

    /// Two instances updating one view for different base steps at once, as the service does after a base's
    /// revision is announced to both: whichever order they commit in, the view ends at the higher step and its
    /// revisions are in step order (a lower step never commits after a higher one).
    @Test func racingInstancesKeepAViewInBaseOrder() async throws {
        let instances = [try openPostgresStore(), try openPostgresStore()]
        defer { instances.forEach { $0.close() } }
        let list = uniqueID("race")
        try await onOwnThread {
            _ = try instances[0].attachView(list: list, base: "base", definition: "{}", maximumViews: .max)
            _ = try instances[0].append(RevisionWrite.create(list).forView(generation: 1, step: 0))
        }
        let log = StepLog()
        log.record(revision: 1, step: 0)
        for round in 0..<50 {
            let steps = [2 * round + 1, 2 * round + 2].shuffled()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, step) in steps.enumerated() {
                    let store = instances[index]
                    group.addTask {
                        try await onOwnThread {
                            if let revision = try writeView(store, list, step: step, attempts: 200) { log.record(revision: revision, step: step) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let view = try await onOwnThread { try instances[round % 2].view(list) }
            #expect(view?.baseStep == 2 * round + 2, "round \(round)")
        }
        let committed = log.steps.withLock { $0 }.sorted { $0.revision < $1.revision }
        #expect(committed.map(\.revision) == Array(1...committed.count), "every revision committed once")
        #expect(committed.map(\.step) == committed.map(\.step).sorted(), "in step order: \(committed)")
        #expect(committed.last?.step == 100)
        let head = try await onOwnThread { try instances[0].head(list) }
        #expect(head?.revision == committed.count)
        _ = try await onOwnThread { try instances[0].detachView(list) }
    }
}

/// Which step each committed revision of a view was written for.
final class StepLog: Sendable {
    let steps = Mutex<[(revision: Int, step: Int)]>([])
    func record(revision: Int, step: Int) { steps.withLock { $0.append((revision, step)) } }
}
