import GRDB
import ListDeltaStorage
import Testing
@testable import ListDeltaSQLite

@Suite struct HistoryTests {
    private func summary(_ origin: RevisionOrigin, at milliseconds: Int64, items: Int) -> RevisionSummary {
        RevisionSummary(
            committedAtMilliseconds: milliseconds, origin: origin, sectionCount: 1, itemCount: items,
            sectionChanges: OperationCounts(), itemChanges: OperationCounts(deleted: 1, inserted: 2, moved: 3, updated: 4))
    }

    /// A create and `count - 1` updates, each with a summary and an undo blob; origins cycle through every kind.
    private func write(_ store: SQLiteStore, count: Int) throws {
        var create = RevisionWrite.create("a")
        create.summary = summary(.put, at: 1_000, items: 0)
        _ = try store.append(create)
        let origins: [RevisionOrigin] = [.patch, .revert(to: 1), .source, .put]
        for expected in 1..<count {
            var update = RevisionWrite.update("a", expected: expected, checkpoint: expected % 4 == 0)
            update.summary = summary(origins[expected % origins.count], at: 1_000 + Int64(expected), items: expected)
            update.undo = blob(3, revision: expected + 1)
            _ = try store.append(update)
        }
    }

    @Test func pagesNewestFirstWithEverySummaryField() throws {
        try withStore { store, _ in
            try write(store, count: 7)
            let first = try #require(try store.history("a", before: nil, limit: 3))
            #expect(first.revisions.map(\.revision) == [7, 6, 5])
            #expect(first.hasMore)
            #expect(first.head.revision == 7 && first.head.oldestRevision == 1)
            let seven = first.revisions[0]
            #expect(seven == RevisionSummary(
                revision: 7, committedAtMilliseconds: 1_006, origin: .source, sectionCount: 1, itemCount: 6,
                sectionChanges: OperationCounts(), itemChanges: OperationCounts(deleted: 1, inserted: 2, moved: 3, updated: 4)))
            #expect(first.revisions[1].origin == .revert(to: 1) && first.revisions[2].origin == .patch)
            let second = try #require(try store.history("a", before: 5, limit: 3))
            #expect(second.revisions.map(\.revision) == [4, 3, 2])
            #expect(second.revisions.map(\.origin) == [.put, .source, .revert(to: 1)])
            let last = try #require(try store.history("a", before: 2, limit: 3))
            #expect(last.revisions.map(\.revision) == [1])
            #expect(last.revisions[0].origin == .put && !last.hasMore)
            #expect(try store.history("a", before: 1, limit: 3)?.revisions == [])
            #expect(try store.history("a", before: 100, limit: 1)?.revisions.map(\.revision) == [7])
            #expect(try store.history("missing", before: nil, limit: 3) == nil)
        }
    }

    @Test func showsOnlyServedRevisionsOfTheCurrentIncarnation() throws {
        try withStore(retention: 3) { store, _ in
            try write(store, count: 9)
            // Rows from checkpoint 5 are kept to rebuild 7, but only 7...9 are served.
            let page = try #require(try store.history("a", before: nil, limit: 100))
            #expect(page.revisions.map(\.revision) == [9, 8, 7])
            #expect(!page.hasMore)
            _ = try store.delete("a", expectedRevision: nil)
            #expect(try store.history("a", before: nil, limit: 10) == nil)
            var recreate = RevisionWrite.create("a")
            recreate.summary = summary(.put, at: 5_000, items: 0)
            _ = try store.append(recreate)
            #expect(try store.history("a", before: nil, limit: 10)?.revisions.map(\.revision) == [10])
        }
    }

    @Test func undoChainRunsNewestFirstOverServedRevisions() throws {
        try withStore(retention: 5) { store, _ in
            try write(store, count: 9)
            let chain = try #require(try store.undoChain("a", from: 9, downTo: 5))
            #expect(chain.map(\.revision) == [9, 8, 7, 6])
            #expect(chain.map(\.undo) == (6...9).reversed().map { blob(3, revision: $0) })
            #expect(try store.undoChain("a", from: 9, downTo: 9) == [])
            #expect(try store.undoChain("a", from: 9, downTo: 4) == nil, "4 is no longer served")
            #expect(try store.undoChain("a", from: 10, downTo: 6) == nil, "10 does not exist")
        }
    }

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
            // New revisions carry their summary beside the old ones.
            var update = RevisionWrite.update("old", expected: 2)
            update.summary = summary(.patch, at: 9, items: 3)
            _ = try store.append(update)
            #expect(try store.history("old", before: nil, limit: 1)?.revisions.first?.origin == .patch)
        }
    }
}
