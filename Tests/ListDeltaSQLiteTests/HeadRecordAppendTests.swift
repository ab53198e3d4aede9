import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing
@testable import ListDeltaSQLite

/// The pure decision behind `append`, tested without a database.
@Suite struct HeadRecordAppendTests {
    private func isInvalidWrite(_ error: any Error) -> Bool {
        if case .invalidWrite = error as? StoreError { return true }
        return false
    }

    @Test func createAfterTombstoneContinuesNumbering() throws {
        var tombstone = try HeadRecord.appending(.create("a"), to: nil, retention: 3)
        tombstone.revision = 7
        tombstone = tombstone.tombstone
        let next = try HeadRecord.appending(.create("a"), to: tombstone, retention: 3)
        #expect(next.revision == 8)
        #expect(next.firstRevision == 8)
        #expect(next.oldestRevision == 8)
        #expect(next.checkpointRevision == 8)
        #expect(!next.isDeleted)
    }

    @Test func retentionFloorMoves() throws {
        var head = try HeadRecord.appending(.create("a"), to: nil, retention: 3)
        for expected in 1...5 {
            head = try HeadRecord.appending(.update("a", expected: expected, deltaSize: 4), to: head, retention: 3)
            #expect(head.oldestRevision == max(1, expected + 1 - 2))
            #expect(head.deltaBytesSinceCheckpoint == 4 * expected)
            #expect(head.checkpointRevision == 1)
        }
    }

    @Test func malformedWritesAreInvalid() throws {
        let live = try HeadRecord.appending(.create("a"), to: nil, retention: 3)
        var write = RevisionWrite.create("a")
        write.snapshot = nil
        #expect(performing: { _ = try HeadRecord.appending(write, to: nil, retention: 3) }, throws: isInvalidWrite)
        write = .create("a")
        write.delta = [1]
        #expect(performing: { _ = try HeadRecord.appending(write, to: nil, retention: 3) }, throws: isInvalidWrite)
        write = .create("")
        #expect(performing: { _ = try HeadRecord.appending(write, to: nil, retention: 3) }, throws: isInvalidWrite)
        write = .update("a", expected: 1)
        write.delta = nil
        #expect(performing: { _ = try HeadRecord.appending(write, to: live, retention: 3) }, throws: isInvalidWrite)
        write = .update("a", expected: 1)
        write.itemCount = -1
        #expect(performing: { _ = try HeadRecord.appending(write, to: live, retention: 3) }, throws: isInvalidWrite)
    }
}
