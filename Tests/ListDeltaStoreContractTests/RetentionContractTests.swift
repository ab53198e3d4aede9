import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Retention and checkpoints: the last `retention` revisions are served, each rebuilt from the checkpoint at or
/// below it, and what rebuilding costs each way is counted from the stored bytes.
@Suite struct RetentionContractTests {
    /// Appends `count` revisions, with a checkpoint every 3 revisions (1, 4, 7, …).
    private func appendRevisions(_ store: any ContractStore, _ id: String, count: Int) throws -> ListHead {
        var head = try store.append(.create(id))
        for expected in 1..<count {
            head = try store.append(.update(id, expected: expected, checkpoint: (expected + 1) % 3 == 1))
        }
        return head
    }

    @Test(arguments: StoreKind.available)
    func theLastRevisionsAreServedFromTheirCheckpoints(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 5) { store in
            let a = uniqueID("a")
            let head = try appendRevisions(store, a, count: 20)
            #expect(head.revision == 20)
            #expect(head.oldestRevision == 16)
            #expect(try store.chain(a, upTo: 15) == nil)
            #expect(try store.chain(a, upTo: 21) == nil)
            for revision in 16...20 {
                let chain = try #require(try store.chain(a, upTo: revision))
                let first = try #require(chain.first)
                #expect(first.snapshot != nil)
                #expect(first.revision <= revision)
                #expect(chain.map(\.revision) == Array(first.revision...revision))
                #expect(chain.dropFirst().allSatisfy { $0.snapshot == nil && $0.delta != nil })
                #expect(chain.last?.delta == blob(2, revision: revision, count: 8))
            }
            #expect(try store.chain(a, upTo: 17)?.map(\.revision) == [16, 17])
            #expect(try store.chain(a, upTo: 20)?.map(\.revision) == [19, 20])
        }
    }

    @Test(arguments: StoreKind.available)
    func theCheckpointBelowTheOldestServedRevisionIsKeptButNotServed(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 5) { store in
            let a = uniqueID("a")
            let head = try appendRevisions(store, a, count: 18)
            #expect(head.oldestRevision == 14)
            // Checkpoint 13 is needed to rebuild 14 and 15, but 13 itself is not served.
            #expect(try store.chain(a, upTo: 13) == nil)
            #expect(try store.chain(a, upTo: 14)?.map(\.revision) == [13, 14])
            #expect(try store.chain(a, upTo: 15)?.map(\.revision) == [13, 14, 15])
        }
    }

    @Test(arguments: StoreKind.available)
    func theOldestRevisionStartsAtTheFirstOfTheIncarnation(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 5) { store in
            let a = uniqueID("a")
            _ = try appendRevisions(store, a, count: 7)
            _ = try store.delete(a, expectedRevision: nil)
            var head = try store.append(.create(a))
            #expect(head.oldestRevision == 8)
            head = try store.append(.update(a, expected: 8))
            head = try store.append(.update(a, expected: 9))
            #expect(head.oldestRevision == 8)
            #expect(try store.chain(a, upTo: 10)?.map(\.revision) == [8, 9, 10])
        }
    }

    @Test(arguments: StoreKind.available)
    func withoutCheckpointsTheRowsAreKeptButNotServed(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 2) { store in
            let a = uniqueID("a")
            var head = try store.append(.create(a))
            for expected in 1..<6 { head = try store.append(.update(a, expected: expected)) }
            #expect(head.oldestRevision == 5)
            #expect(head.deltaBytesSinceCheckpoint == 40)
            #expect(try store.chain(a, upTo: 4) == nil)
            #expect(try store.chain(a, upTo: 5)?.map(\.revision) == [1, 2, 3, 4, 5])
        }
    }

    /// Revision 1 is a 32-byte snapshot, every later one an 8-byte delta with a 6-byte undo diff, and 4 is also a
    /// checkpoint (32 bytes).
    @Test(arguments: StoreKind.available)
    func rebuildCostsCountWhatEachWayReads(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 6) { store in
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            for expected in 1..<7 { _ = try store.append(.update(a, expected: expected, checkpoint: expected == 3)) }
            // Forwards from checkpoint 1 (32 + 8 + 8), or back from 7 through 4 undo diffs.
            #expect(try store.rebuildCosts(a, revision: 3, from: 7) == RebuildCosts(forwardBytes: 48, forwardRows: 3, backwardBytes: 24, backwardRows: 4))
            // Checkpoint 4 is the start: its snapshot, not its delta.
            #expect(try store.rebuildCosts(a, revision: 4, from: 7) == RebuildCosts(forwardBytes: 32, forwardRows: 1, backwardBytes: 18, backwardRows: 3))
            #expect(try store.rebuildCosts(a, revision: 5, from: 6) == RebuildCosts(forwardBytes: 40, forwardRows: 2, backwardBytes: 6, backwardRows: 1))
            #expect(try store.rebuildCosts(a, revision: 7, from: 7) == RebuildCosts(forwardBytes: 56, forwardRows: 4, backwardBytes: 0, backwardRows: 0))
            // A revision written without its undo diff leaves only the way forwards.
            var withoutUndo = RevisionWrite.update(a, expected: 7)
            withoutUndo.undo = nil
            _ = try store.append(withoutUndo)
            #expect(try store.rebuildCosts(a, revision: 6, from: 8) == RebuildCosts(forwardBytes: 48, forwardRows: 3, backwardBytes: nil, backwardRows: 2))
            #expect(try store.undoChain(a, from: 8, downTo: 6) == [StoredUndo(revision: 8, undo: nil), StoredUndo(revision: 7, undo: blob(3, revision: 7, count: 6))])
            // Only served revisions of a live list, and never from an older one.
            #expect(try store.head(a)?.oldestRevision == 3)
            #expect(try store.rebuildCosts(a, revision: 2, from: 8) == nil, "2 is no longer served")
            #expect(try store.rebuildCosts(a, revision: 3, from: 9) == nil, "9 does not exist")
            #expect(try store.rebuildCosts(a, revision: 6, from: 5) == nil, "newer is below the revision")
            #expect(try store.rebuildCosts(uniqueID("missing"), revision: 1, from: 1) == nil)
        }
    }
}
