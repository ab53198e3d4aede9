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
