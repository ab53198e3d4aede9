import Foundation
import ListDeltaPostgres
import ListDeltaSQLite
import ListDeltaStorage
import Synchronization
import Testing

/// What every view store promises: attach, change and detach views, the bound on views, and writes of a view that
/// commit only when they move it forward along its base.
enum ViewStoreContract {
    typealias Store = any RevisionStore & ViewStore

    /// `write` as a view's write at `step`.
    static func viewWrite(_ write: RevisionWrite, generation: Int, step: Int) -> RevisionWrite {
        var write = write
        write.viewStep = ViewStep(generation: generation, baseStep: step)
        return write
    }

    /// The reason of a ``StoreError/superseded(_:)`` `body` throws, `nil` when it throws something else or nothing.
    static func supersededReason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            if case .superseded(let reason)? = error as? StoreError { return reason }
            return nil
        }
    }

    static func attachChangeDetach(_ store: Store) throws {
        let prefix = uniqueID("views")
        let (base, first, second) = ("\(prefix)-base", "\(prefix)-b", "\(prefix)-a")
        let attached = try store.attachView(list: first, base: base, definition: "{\"q\":1}", maximumViews: .max)
        #expect(attached.created)
        #expect(attached.view == StoredView(list: first, base: base, definition: "{\"q\":1}", generation: 1, baseStep: -1))
        #expect(try store.view(first) == attached.view)
        #expect(try store.advanceView(list: first, step: ViewStep(generation: 1, baseStep: 4), atRevision: nil))
        #expect(try store.view(first)?.baseStep == 4)
        // A change: a new generation, from the start of its base again.
        let changed = try store.attachView(list: first, base: base, definition: "{\"q\":2}", maximumViews: .max)
        #expect(!changed.created)
        #expect(changed.view == StoredView(list: first, base: base, definition: "{\"q\":2}", generation: 2, baseStep: -1))
        #expect(try store.view(first) == changed.view)
        // Another base is a change too.
        let moved = try store.attachView(list: first, base: "\(prefix)-other", definition: "{\"q\":2}", maximumViews: .max)
        #expect(moved.view.generation == 3)
        #expect(try store.views(of: base).isEmpty)
        _ = try store.attachView(list: first, base: base, definition: "{\"q\":3}", maximumViews: .max)
        _ = try store.attachView(list: second, base: base, definition: "{}", maximumViews: .max)
        // By list id ("-a" before "-b").
        #expect(try store.views(of: base).map(\.list) == [second, first])
        #expect(try store.views(of: base).map(\.generation) == [1, 4])
        #expect(try store.allViews().map(\.list).filter { $0.hasPrefix(prefix) } == [second, first])
        let all = try store.allViews().map(\.list)
        #expect(all == all.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(try store.detachView(first))
        #expect(try store.detachView(first) == false)
        #expect(try store.view(first) == nil)
        #expect(try store.views(of: base).map(\.list) == [second])
        // Attached again: a new view, counted from 1 again.
        let again = try store.attachView(list: first, base: base, definition: "{}", maximumViews: .max)
        #expect(again.created)
        #expect(again.view.generation == 1)
        _ = try store.detachView(first)
        _ = try store.detachView(second)
        // Rows are independent of heads: no list was created.
        #expect(try store.head(first) == nil)
    }

    /// Robust against other tests attaching and detaching views at the same time (on a shared database).
    static func theNumberOfViewsIsBounded(_ store: Store) throws {
        let first = uniqueID("bound")
        _ = try store.attachView(list: first, base: "b", definition: "{}", maximumViews: .max)
        // At least `first` is attached, so a bound of 1 refuses any new view...
        #expect(throws: StoreError.limitReached("the service holds its maximum of 1 views")) {
            try store.attachView(list: uniqueID("bound"), base: "b", definition: "{}", maximumViews: 1)
        }
        #expect(throws: StoreError.self) { try store.attachView(list: uniqueID("bound"), base: "b", definition: "{}", maximumViews: 0) }
        // ...but changing one that is attached is no new view.
        #expect(try store.attachView(list: first, base: "b", definition: "{\"v\":2}", maximumViews: 1).view.generation == 2)
        #expect(try store.detachView(first))
    }

    static func viewWritesMoveTheViewForward(_ store: Store) throws {
        let list = uniqueID("vw")
        _ = try store.attachView(list: list, base: "base", definition: "{}", maximumViews: .max)
        let created = try store.append(viewWrite(.create(list), generation: 1, step: 2))
        #expect(created.revision == 1)
        #expect(try store.view(list)?.baseStep == 2)

        let head = try store.head(list)
        let history = try store.history(list, before: nil, limit: 10)
        func unchanged(_ step: Int) throws {
            #expect(try store.head(list) == head)
            #expect(try store.history(list, before: nil, limit: 10) == history)
            #expect(try store.view(list)?.baseStep == step)
        }
        // The same step, a lower one, another generation: nothing written.
        #expect(supersededReason { _ = try store.append(viewWrite(.update(list, expected: 1), generation: 1, step: 2)) }?
            .contains("already at base step 2") == true)
        try unchanged(2)
        #expect(supersededReason { _ = try store.append(viewWrite(.update(list, expected: 1), generation: 1, step: 1)) } != nil)
        try unchanged(2)
        #expect(supersededReason { _ = try store.append(viewWrite(.update(list, expected: 1), generation: 2, step: 6)) }?
            .contains("changed") == true)
        try unchanged(2)
        // Forward: applied, and recorded.
        #expect(try store.append(viewWrite(.update(list, expected: 1), generation: 1, step: 4)).revision == 2)
        #expect(try store.view(list)?.baseStep == 4)
        // The head's own check still applies (a conflict, with nothing recorded), and comes first.
        #expect(throws: StoreError.conflict(current: 2)) { try store.append(viewWrite(.update(list, expected: 1), generation: 1, step: 6)) }
        #expect(throws: StoreError.conflict(current: 2)) { try store.append(viewWrite(.update(list, expected: 1), generation: 1, step: 3)) }
        #expect(throws: StoreError.conflict(current: 2)) { try store.append(viewWrite(.create(list), generation: 1, step: 6)) }
        #expect(try store.view(list)?.baseStep == 4)
        // An unguarded write is not checked (nor does it move the view).
        #expect(try store.append(.update(list, expected: 2)).revision == 3)
        #expect(try store.view(list)?.baseStep == 4)
        // A changed view takes writes of its new generation from any step.
        _ = try store.attachView(list: list, base: "base", definition: "{\"v\":2}", maximumViews: .max)
        #expect(supersededReason { _ = try store.append(viewWrite(.update(list, expected: 3), generation: 1, step: 8)) } != nil)
        #expect(try store.append(viewWrite(.update(list, expected: 3), generation: 2, step: 0)).revision == 4)
        #expect(try store.view(list)?.baseStep == 0)
        // Detached: nothing written.
        #expect(try store.detachView(list))
        let detachedHead = try store.head(list)
        let detachedHistory = try store.history(list, before: nil, limit: 10)
        #expect(supersededReason { _ = try store.append(viewWrite(.update(list, expected: 4), generation: 2, step: 10)) }?
            .contains("detached") == true)
        #expect(try store.head(list) == detachedHead)
        #expect(try store.history(list, before: nil, limit: 10) == detachedHistory)
        #expect(try store.view(list) == nil)
        // A list that never was a view: no list is created.
        let plain = uniqueID("plain")
        #expect(supersededReason { _ = try store.append(viewWrite(.create(plain), generation: 1, step: 0)) } != nil)
        #expect(try store.head(plain) == nil)
        #expect(try store.view(plain) == nil)
    }

    static func advanceView(_ store: Store) throws {
        let list = uniqueID("adv")
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 0), atRevision: nil) == false, "not a view")
        _ = try store.attachView(list: list, base: "base", definition: "{}", maximumViews: .max)
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 2), atRevision: nil))
        #expect(try store.view(list)?.baseStep == 2)
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 2), atRevision: nil) == false, "not lower")
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 1), atRevision: nil) == false, "lower")
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 2, baseStep: 4), atRevision: nil) == false, "generation")
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 4), atRevision: 1) == false, "no list")
        #expect(try store.view(list)?.baseStep == 2)
        _ = try store.append(viewWrite(.create(list), generation: 1, step: 4))
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 6), atRevision: nil) == false, "the list exists")
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 6), atRevision: 2) == false, "another revision")
        #expect(try store.view(list)?.baseStep == 4)
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 6), atRevision: 1))
        #expect(try store.view(list)?.baseStep == 6)
        #expect(try store.head(list)?.revision == 1, "no revision written")
        // A deleted list is no live list.
        _ = try store.delete(list, expectedRevision: 1)
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 8), atRevision: 1) == false)
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 8), atRevision: nil))
        #expect(try store.view(list)?.baseStep == 8)
        _ = try store.detachView(list)
        #expect(try store.advanceView(list: list, step: ViewStep(generation: 1, baseStep: 10), atRevision: nil) == false, "detached")
    }
}

@Suite struct SQLiteViewStoreContractTests {
    private func store() throws -> SQLiteStore {
        try SQLiteStore(configuration: SQLiteStoreConfiguration(directory: NSTemporaryDirectory() + "views-\(UUID().uuidString)"))
    }

    @Test func attachChangeDetach() throws { try ViewStoreContract.attachChangeDetach(try store()) }
    @Test func theNumberOfViewsIsBounded() throws { try ViewStoreContract.theNumberOfViewsIsBounded(try store()) }
    @Test func viewWritesMoveTheViewForward() throws { try ViewStoreContract.viewWritesMoveTheViewForward(try store()) }
    @Test func advanceView() throws { try ViewStoreContract.advanceView(try store()) }
}

@Suite(.enabled(if: hasTestDatabase, "needs LISTDELTA_TEST_POSTGRES_URL (scripts/test.sh starts a server)"))
struct PostgresViewStoreTests {
    @Test func attachChangeDetach() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        try await onOwnThread { try ViewStoreContract.attachChangeDetach(store) }
    }

    @Test func theNumberOfViewsIsBounded() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        try await onOwnThread { try ViewStoreContract.theNumberOfViewsIsBounded(store) }
    }

    @Test func viewWritesMoveTheViewForward() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        try await onOwnThread { try ViewStoreContract.viewWritesMoveTheViewForward(store) }
    }

    @Test func advanceView() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        try await onOwnThread { try ViewStoreContract.advanceView(store) }
    }

    /// A write of another instance moves the head this instance knows: the guarded append is decided again on the
    /// head the database returns, and still checks the view.
    @Test func aViewWriteAfterAnotherInstanceWrote() async throws {
        let instances = [try openPostgresStore(), try openPostgresStore()]
        defer { instances.forEach { $0.close() } }
        try await onOwnThread {
            let list = uniqueID("other")
            _ = try instances[0].attachView(list: list, base: "base", definition: "{}", maximumViews: .max)
            _ = try instances[0].append(ViewStoreContract.viewWrite(.create(list), generation: 1, step: 0))
            _ = try instances[1].append(ViewStoreContract.viewWrite(.update(list, expected: 1), generation: 1, step: 2))
            // Instance 0 knows revision 1; the database has 2.
            #expect(try instances[0].append(ViewStoreContract.viewWrite(.update(list, expected: 2), generation: 1, step: 4)).revision == 3)
            #expect(ViewStoreContract.supersededReason {
                _ = try instances[1].append(ViewStoreContract.viewWrite(.update(list, expected: 3), generation: 1, step: 4))
            } != nil)
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
            _ = try instances[0].append(ViewStoreContract.viewWrite(.create(list), generation: 1, step: 0))
        }
        let log = StepLog()
        log.record(revision: 1, step: 0)
        for round in 0..<50 {
            let steps = [2 * round + 1, 2 * round + 2].shuffled()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, step) in steps.enumerated() {
                    let store = instances[index]
                    group.addTask { try await onOwnThread { try Self.writeView(store, list, step: step, log: log) } }
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

    /// Writes the view at `step` as the service does: on the head as it is, again after a lost race, until it
    /// commits or is superseded.
    private static func writeView(_ store: PostgresStore, _ list: String, step: Int, log: StepLog) throws {
        for _ in 0..<200 {
            let current = try store.head(list)!.revision
            let write = ViewStoreContract.viewWrite(.update(list, expected: current), generation: 1, step: step)
            switch Result(catching: { () throws(StoreError) in try store.append(write) }) {
            case .success(let head):
                log.record(revision: head.revision, step: step)
                return
            case .failure(.conflict):
                continue
            case .failure(.superseded):
                return
            case .failure(let error):
                throw error
            }
        }
        Issue.record("step \(step) neither committed nor was superseded")
    }
}

/// Which step each committed revision of a view was written for.
final class StepLog: Sendable {
    let steps = Mutex<[(revision: Int, step: Int)]>([])
    func record(revision: Int, step: Int) { steps.withLock { $0.append((revision, step)) } }
}
