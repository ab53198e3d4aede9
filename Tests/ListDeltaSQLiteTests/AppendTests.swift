import ListDeltaStorage
import Testing
@testable import ListDeltaSQLite

@Suite struct AppendTests {
    @Test func createThenUpdates() throws {
        try withStore { store, _ in
            let created = try store.append(.create("a", snapshotSize: 40))
            #expect(created == ListHead(
                id: "a", revision: 1, isDeleted: false, oldestRevision: 1, firstRevision: 1, kind: "plain",
                sectionCount: 1, itemCount: 0, deltaBytesSinceCheckpoint: 0, checkpointBytes: 40
            ))
            var head = created
            for expected in 1...4 {
                head = try store.append(.update("a", expected: expected, deltaSize: 10))
            }
            #expect(head.revision == 5)
            #expect(head.itemCount == 4)
            #expect(head.deltaBytesSinceCheckpoint == 40)
            #expect(head.checkpointBytes == 40)
            #expect(try store.head("a") == head)

            let chain = try #require(try store.chain("a", upTo: 5))
            #expect(chain.map(\.revision) == [1, 2, 3, 4, 5])
            #expect(chain[0].snapshot == blob(1, revision: 1, count: 40))
            #expect(chain[0].delta == nil)
            #expect(chain[4].delta == blob(2, revision: 5, count: 10))
            #expect(chain[4].snapshot == nil)
        }
    }

    @Test func snapshotResetsDeltaBytes() throws {
        try withStore { store, _ in
            _ = try store.append(.create("a"))
            _ = try store.append(.update("a", expected: 1, deltaSize: 7))
            let checkpoint = try store.append(.update("a", expected: 2, deltaSize: 7, checkpoint: true))
            #expect(checkpoint.deltaBytesSinceCheckpoint == 0)
            #expect(checkpoint.checkpointBytes == 32)
            let next = try store.append(.update("a", expected: 3, deltaSize: 5))
            #expect(next.deltaBytesSinceCheckpoint == 5)
            #expect(try store.chain("a", upTo: 4)?.map(\.revision) == [3, 4])
            #expect(try store.chain("a", upTo: 2)?.map(\.revision) == [1, 2])
        }
    }

    @Test func conflictOnWrongExpectedRevision() throws {
        try withStore { store, _ in
            _ = try store.append(.create("a"))
            _ = try store.append(.update("a", expected: 1))
            #expect(throws: StoreError.conflict(current: 2)) { try store.append(.update("a", expected: 1)) }
            #expect(throws: StoreError.conflict(current: 2)) { try store.append(.update("a", expected: 3)) }
            #expect(throws: StoreError.conflict(current: nil)) { try store.append(.update("missing", expected: 1)) }
            #expect(try store.head("a")?.revision == 2)
            #expect(try store.revisionRowCount("a") == 2)
        }
    }

    @Test func conflictOnCreateWhenExists() throws {
        try withStore { store, _ in
            _ = try store.append(.create("a"))
            #expect(throws: StoreError.conflict(current: 1)) { try store.append(.create("a")) }
            #expect(try store.revisionRowCount("a") == 1)
        }
    }

    @Test func malformedWritesAreRejected() throws {
        try withStore { store, _ in
            var noSnapshot = RevisionWrite.create("a")
            noSnapshot.snapshot = nil
            #expect(throws: StoreError.self) { try store.append(noSnapshot) }
            var createWithDelta = RevisionWrite.create("a")
            createWithDelta.delta = [1]
            #expect(throws: StoreError.self) { try store.append(createWithDelta) }
            #expect(throws: StoreError.self) { try store.append(.create("")) }
            _ = try store.append(.create("a"))
            var noDelta = RevisionWrite.update("a", expected: 1)
            noDelta.delta = nil
            #expect(throws: StoreError.self) { try store.append(noDelta) }
            #expect(try store.head("a")?.revision == 1)
        }
    }

    @Test func retentionBelowOneIsRejected() throws {
        try withTemporaryDirectory { path in
            var configuration = SQLiteStoreConfiguration(directory: path)
            configuration.retention = 0
            #expect(throws: StoreError.self) { try SQLiteStore(configuration: configuration) }
        }
    }
}
