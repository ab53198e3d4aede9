import GRDB
import ListDeltaCoreTestSupport
import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing
@testable import ListDeltaSQLite

/// Databases an earlier release wrote, opened by this one.
@Suite struct MigrationTests {
    @Test func revisionsWrittenBeforeSummariesSayTheyHaveNone() throws {
        try withTemporaryDirectory { path in
            // A database at the first schema, written as the previous release wrote it.
            var configuration = SQLiteStoreConfiguration(directory: path)
            let queue = try DatabaseQueue(path: configuration.databasePath)
            try SQLiteStore.migrator.migrate(queue, upTo: "v1")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO list_head VALUES ('old', 2, 0, 1, 1, 1, 'array', 1, 3, 8, 32);
                    INSERT INTO revision VALUES ('old', 1, 1, NULL, x'00'), ('old', 2, 0, x'01', NULL);
                    """)
            }
            try queue.close()
            configuration.retention = 10
            let store = try SQLiteStore(configuration: configuration)
            let page = try #require(try store.history("old", before: nil, limit: 10))
            #expect(page.revisions.map(\.revision) == [2, 1])
            #expect(page.revisions.allSatisfy { $0.committedAtMilliseconds == nil && $0.origin == nil && $0.itemChanges == nil })
            #expect(try store.undoChain("old", from: 2, downTo: 1) == [StoredUndo(revision: 2, undo: nil)])
            #expect(try store.rebuildCosts("old", revision: 1, from: 2)?.backwardBytes == nil)
            // New revisions carry their summary beside the old ones.
            _ = try store.append(.update("old", expected: 2))
            #expect(try store.history("old", before: nil, limit: 1)?.revisions.first?.origin == .patch)
        }
    }
}
