import Foundation
import ListDeltaPostgres
import ListDeltaSQLite
import ListDeltaStorage
import Testing

/// The PostgreSQL store answers every call as the SQLite store does, for the same sequence of writes.
@Suite(.enabled(if: hasTestDatabase, "needs LISTDELTA_TEST_POSTGRES_URL (scripts/test.sh starts a server)"))
struct SameBehaviourTests {
    /// Everything a store can be asked about a list, read back after each step.
    private struct Observation: Equatable {
        var head: ListHead?
        var chains: [[StoredRevision]?]
        var undo: [StoredUndo]?
        var costs: [RebuildCosts?]
        var history: HistoryPage?
        var olderHistory: HistoryPage?
        var listed: Bool
    }

    private func observe(_ store: any RevisionStore, _ id: String) throws -> Observation {
        let head = try store.head(id)
        let current = head?.revision ?? 0
        let chains = try (max(1, current - 6)...max(1, current + 1)).map { try store.chain(id, upTo: $0) }
        let undo = try store.undoChain(id, from: current, downTo: max(head?.oldestRevision ?? 0, current - 3))
        let costs = try (max(1, current - 6)...max(1, current + 1)).map { try store.rebuildCosts(id, revision: $0, from: current) }
        let history = try store.history(id, before: nil, limit: 3)
        let older = try store.history(id, before: max(1, current - 2), limit: 2)
        let listed = try store.lists(after: String(id.dropLast()), limit: 5).contains { $0.id == id }
        return Observation(
            head: head, chains: chains, undo: undo, costs: costs, history: history, olderHistory: older, listed: listed)
    }

    /// Creates, updates past retention with checkpoints, conflicts, deletes, recreates (numbering continues).
    private func script(_ id: String) -> [(String, RevisionWrite?, Int?)] {
        var steps: [(String, RevisionWrite?, Int?)] = [("create", .create(id), nil)]
        for revision in 1..<12 { steps.append(("update \(revision)", .update(id, expected: revision, checkpoint: revision % 4 == 0), nil)) }
        steps.append(("stale update", .update(id, expected: 3), nil))
        steps.append(("create over a live list", .create(id), nil))
        steps.append(("delete expecting 5", nil, 5))
        steps.append(("delete", nil, -1))
        steps.append(("update a deleted list", .update(id, expected: 12), nil))
        steps.append(("recreate", .create(id, revision: 13), nil))
        steps.append(("update after recreate", .update(id, expected: 13), nil))
        return steps
    }

    private func run(_ step: (String, RevisionWrite?, Int?), on store: any RevisionStore, _ id: String) -> String {
        do {
            if let write = step.1 { return "head \(try store.append(write))" }
            return "deleted \(String(describing: try store.delete(id, expectedRevision: step.2 == -1 ? nil : step.2)))"
        } catch {
            return "error \(error)"
        }
    }

    @Test func everyCallAnswersAsSQLiteDoes() async throws {
        try await onOwnThread {
            let postgres = try openPostgresStore(retention: 5)
            defer { postgres.close() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-same-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var configuration = SQLiteStoreConfiguration(directory: directory)
            configuration.retention = 5
            let sqlite = try SQLiteStore(configuration: configuration)
            let id = uniqueID("same")
            for step in script(id) {
                let onSQLite = run(step, on: sqlite, id)
                let onPostgres = run(step, on: postgres, id)
                #expect(onSQLite == onPostgres, "\(step.0)")
                #expect(try observe(sqlite, id) == observe(postgres, id), "after \(step.0)")
            }
            #expect(try postgres.head(id)?.revision == 14)
        }
    }

    /// A view's life: attach, guarded writes that apply, are superseded or conflict, advances, a change, a
    /// deletion and a detach.
    private func viewScript(_ id: String) -> [(String, (any RevisionStore & ViewStore) throws(StoreError) -> String)] {
        func write(_ write: RevisionWrite, _ generation: Int, _ step: Int) -> (any RevisionStore & ViewStore) throws(StoreError) -> String {
            { store throws(StoreError) in "head \(try store.append(ViewStoreContract.viewWrite(write, generation: generation, step: step)))" }
        }
        func advance(_ generation: Int, _ step: Int, at revision: Int?) -> (any RevisionStore & ViewStore) throws(StoreError) -> String {
            { store throws(StoreError) in
                "advanced \(try store.advanceView(list: id, step: ViewStep(generation: generation, baseStep: step), atRevision: revision))"
            }
        }
        return [
            ("write before attaching", write(.create(id), 1, 0)),
            ("advance before attaching", advance(1, 0, at: nil)),
            ("attach", { store throws(StoreError) in "\(try store.attachView(list: id, base: "base", definition: "{}", maximumViews: 1_000_000))" }),
            ("advance an absent list", advance(1, 0, at: nil)),
            ("create at the same step", write(.create(id), 1, 0)),
            ("create at step 2", write(.create(id), 1, 2)),
            ("update at a lower step", write(.update(id, expected: 1), 1, 1)),
            ("update of another generation", write(.update(id, expected: 1), 2, 4)),
            ("stale update at step 4", write(.update(id, expected: 0), 1, 4)),
            ("stale update at step 2", write(.update(id, expected: 0), 1, 2)),
            ("update at step 4", write(.update(id, expected: 1), 1, 4)),
            ("advance at another revision", advance(1, 6, at: 1)),
            ("advance at no list", advance(1, 6, at: nil)),
            ("advance at revision 2", advance(1, 6, at: 2)),
            ("unguarded update", { store throws(StoreError) in "head \(try store.append(.update(id, expected: 2)))" }),
            ("change", { store throws(StoreError) in "\(try store.attachView(list: id, base: "base", definition: "{\"v\":2}", maximumViews: 1_000_000))" }),
            ("update of the old generation", write(.update(id, expected: 3), 1, 8)),
            ("update of the new generation", write(.update(id, expected: 3), 2, 0)),
            ("delete", { store throws(StoreError) in "deleted \(String(describing: try store.delete(id, expectedRevision: nil)))" }),
            ("advance at a tombstone", advance(2, 1, at: nil)),
            ("recreate", write(.create(id, revision: 5), 2, 2)),
            ("detach", { store throws(StoreError) in "detached \(try store.detachView(id))" }),
            ("update after detaching", write(.update(id, expected: 5), 2, 4)),
            ("advance after detaching", advance(2, 4, at: 5)),
        ]
    }

    @Test func viewCallsAnswerAsSQLiteDoes() async throws {
        try await onOwnThread {
            let postgres = try openPostgresStore(retention: 5)
            defer { postgres.close() }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pg-same-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var configuration = SQLiteStoreConfiguration(directory: directory)
            configuration.retention = 5
            let sqlite = try SQLiteStore(configuration: configuration)
            let id = uniqueID("same-view")
            for (name, step) in viewScript(id) {
                let answers = [sqlite as any RevisionStore & ViewStore, postgres].map { store in
                    do { return try step(store) } catch { return "error \(error)" }
                }
                #expect(answers[0] == answers[1], "\(name)")
                #expect(try observe(sqlite, id) == observe(postgres, id), "after \(name)")
                #expect(try sqlite.view(id) == postgres.view(id), "after \(name)")
            }
            #expect(try postgres.head(id)?.revision == 5)
        }
    }

    @Test func listsPageInByteOrderAndSkipTombstones() async throws {
        try await onOwnThread {
            let store = try openPostgresStore()
            defer { store.close() }
            let prefix = uniqueID("order")
            // "B" < "a" < "é" in byte order, whatever the server's locale says.
            let ids = ["\(prefix)-a", "\(prefix)-B", "\(prefix)-é", "\(prefix)-b"]
            for id in ids { _ = try store.append(.create(id)) }
            _ = try store.delete("\(prefix)-b", expectedRevision: nil)
            let listed = try store.lists(after: prefix, limit: 10).map(\.id).filter { $0.hasPrefix(prefix) }
            #expect(listed == ["\(prefix)-B", "\(prefix)-a", "\(prefix)-é"])
            #expect(try store.lists(after: "\(prefix)-B", limit: 1).map(\.id) == ["\(prefix)-a"])
        }
    }
}
