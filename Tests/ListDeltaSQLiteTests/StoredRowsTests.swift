import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing
@testable import ListDeltaSQLite

/// The rows the SQLite store keeps (which no protocol call shows): those retention needs, none of a refused write,
/// none of a deleted list. What every store serves is the contract suite's (ListDeltaStoreContractTests).
@Suite struct StoredRowsTests {
    @Test func retentionKeepsTheServedRowsAndTheCheckpointTheyNeed() throws {
        // A checkpoint every 3 revisions (1, 4, 7, …).
        func append(_ store: SQLiteStore, count: Int) throws {
            _ = try store.append(.create("a"))
            for expected in 1..<count { _ = try store.append(.update("a", expected: expected, checkpoint: (expected + 1) % 3 == 1)) }
        }
        try withSQLiteStore(retention: 5) { store, _ in
            try append(store, count: 20)
            // 16...20 are served, from checkpoint 16: rows 1...15 are gone.
            #expect(try store.revisionRowCount("a") == 5)
        }
        try withSQLiteStore(retention: 5) { store, _ in
            try append(store, count: 18)
            // 14...18 are served, and checkpoint 13 rebuilds 14 and 15.
            #expect(try store.revisionRowCount("a") == 6)
        }
    }

    @Test func withoutACheckpointEveryRowSinceTheLastIsKept() throws {
        try withSQLiteStore(retention: 2) { store, _ in
            _ = try store.append(.create("a"))
            for expected in 1..<6 { _ = try store.append(.update("a", expected: expected)) }
            #expect(try store.head("a")?.oldestRevision == 5)
            #expect(try store.revisionRowCount("a") == 6)
        }
    }

    @Test func aRefusedWriteLeavesNoRowAndADeleteLeavesNone() throws {
        try withSQLiteStore { store, _ in
            _ = try store.append(.create("a"))
            #expect(throws: StoreError.conflict(current: 1)) { try store.append(.create("a")) }
            #expect(try store.revisionRowCount("a") == 1)
            _ = try store.append(.update("a", expected: 1))
            #expect(throws: StoreError.conflict(current: 2)) { try store.append(.update("a", expected: 1)) }
            #expect(try store.revisionRowCount("a") == 2)
            _ = try store.delete("a", expectedRevision: nil)
            #expect(try store.revisionRowCount("a") == 0)
        }
    }
}
