import ListDeltaStorage
import Testing
@testable import ListDeltaSQLite

@Suite struct RetentionTests {
    /// Appends `count` revisions, with a checkpoint every 3 revisions (1, 4, 7, …).
    private func appendRevisions(_ store: SQLiteStore, count: Int) throws -> ListHead {
        var head = try store.append(.create("a"))
        for expected in 1..<count {
            head = try store.append(.update("a", expected: expected, checkpoint: (expected + 1) % 3 == 1))
        }
        return head
    }

    @Test func keepsLastRevisionsAndTheirCheckpoint() throws {
        try withStore(retention: 5) { store, _ in
            let head = try appendRevisions(store, count: 20)
            #expect(head.revision == 20)
            #expect(head.oldestRevision == 16)
            #expect(try store.chain("a", upTo: 15) == nil)
            #expect(try store.chain("a", upTo: 21) == nil)
            for revision in 16...20 {
                let chain = try #require(try store.chain("a", upTo: revision))
                let first = try #require(chain.first)
                #expect(first.snapshot != nil)
                #expect(first.revision <= revision)
                #expect(chain.map(\.revision) == Array(first.revision...revision))
                #expect(chain.dropFirst().allSatisfy { $0.snapshot == nil && $0.delta != nil })
                #expect(chain.last?.delta == blob(2, revision: revision, count: 8))
            }
            #expect(try store.chain("a", upTo: 17)?.map(\.revision) == [16, 17])
            #expect(try store.chain("a", upTo: 20)?.map(\.revision) == [19, 20])
            // Checkpoint 16 is the oldest one needed: rows 1...15 are gone.
            #expect(try store.revisionRowCount("a") == 5)
        }
    }

    @Test func keepsRowsBetweenCheckpointAndOldestRevision() throws {
        try withStore(retention: 5) { store, _ in
            let head = try appendRevisions(store, count: 18)
            #expect(head.oldestRevision == 14)
            // Checkpoint 13 is needed to rebuild 14 and 15, but 13 itself is not served.
            #expect(try store.chain("a", upTo: 13) == nil)
            #expect(try store.chain("a", upTo: 14)?.map(\.revision) == [13, 14])
            #expect(try store.revisionRowCount("a") == 6)
        }
    }

    @Test func oldestRevisionStartsAtFirstRevisionOfIncarnation() throws {
        try withStore(retention: 5) { store, _ in
            _ = try appendRevisions(store, count: 7)
            _ = try store.delete("a", expectedRevision: nil)
            var head = try store.append(.create("a"))
            #expect(head.oldestRevision == 8)
            head = try store.append(.update("a", expected: 8))
            head = try store.append(.update("a", expected: 9))
            #expect(head.oldestRevision == 8)
            #expect(try store.chain("a", upTo: 10)?.map(\.revision) == [8, 9, 10])
        }
    }

    @Test func withoutCheckpointsRowsAreKeptButNotServed() throws {
        try withStore(retention: 2) { store, _ in
            var head = try store.append(.create("a"))
            for expected in 1..<6 { head = try store.append(.update("a", expected: expected)) }
            #expect(head.oldestRevision == 5)
            #expect(head.deltaBytesSinceCheckpoint == 40)
            #expect(try store.chain("a", upTo: 4) == nil)
            #expect(try store.chain("a", upTo: 5)?.map(\.revision) == [1, 2, 3, 4, 5])
            #expect(try store.revisionRowCount("a") == 6)
        }
    }
}
