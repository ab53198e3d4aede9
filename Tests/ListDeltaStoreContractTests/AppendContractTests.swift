import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Appends and conflicts: revisions numbered without gaps, committed only on the revision they expect.
@Suite struct AppendContractTests {
    @Test(arguments: StoreKind.available)
    func createThenUpdates(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            let created = try store.append(.create(a, snapshotSize: 40))
            #expect(created == ListHead(
                id: a, revision: 1, isDeleted: false, oldestRevision: 1, firstRevision: 1, kind: "plain",
                sectionCount: 1, itemCount: 0, deltaBytesSinceCheckpoint: 0, checkpointBytes: 40
            ))
            var head = created
            for expected in 1...4 {
                head = try store.append(.update(a, expected: expected, deltaSize: 10))
            }
            #expect(head.revision == 5)
            #expect(head.itemCount == 4)
            #expect(head.deltaBytesSinceCheckpoint == 40)
            #expect(head.checkpointBytes == 40)
            #expect(try store.head(a) == head)

            let chain = try #require(try store.chain(a, upTo: 5))
            #expect(chain.map(\.revision) == [1, 2, 3, 4, 5])
            #expect(chain[0].snapshot == blob(1, revision: 1, count: 40))
            #expect(chain[0].delta == nil)
            #expect(chain[4].delta == blob(2, revision: 5, count: 10))
            #expect(chain[4].snapshot == nil)
            #expect(try store.head(uniqueID("missing")) == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func aSnapshotResetsTheDeltaBytes(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            _ = try store.append(.update(a, expected: 1, deltaSize: 7))
            let checkpoint = try store.append(.update(a, expected: 2, deltaSize: 7, checkpoint: true))
            #expect(checkpoint.deltaBytesSinceCheckpoint == 0)
            #expect(checkpoint.checkpointBytes == 32)
            let next = try store.append(.update(a, expected: 3, deltaSize: 5))
            #expect(next.deltaBytesSinceCheckpoint == 5)
            #expect(try store.chain(a, upTo: 4)?.map(\.revision) == [3, 4])
            #expect(try store.chain(a, upTo: 2)?.map(\.revision) == [1, 2])
        }
    }

    @Test(arguments: StoreKind.available)
    func aWrongExpectedRevisionConflictsAndWritesNothing(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            let head = try store.append(.update(a, expected: 1))
            #expect(throws: StoreError.conflict(current: 2)) { try store.append(.update(a, expected: 1)) }
            #expect(throws: StoreError.conflict(current: 2)) { try store.append(.update(a, expected: 3)) }
            #expect(throws: StoreError.conflict(current: nil)) { try store.append(.update(uniqueID("missing"), expected: 1)) }
            #expect(try store.head(a) == head)
            #expect(try store.chain(a, upTo: 2)?.map(\.revision) == [1, 2])
            #expect(try store.chain(a, upTo: 3) == nil)
            #expect(try store.history(a, before: nil, limit: 10)?.revisions.map(\.revision) == [2, 1])
        }
    }

    @Test(arguments: StoreKind.available)
    func aCreateOverALiveListConflicts(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            let head = try store.append(.create(a))
            #expect(throws: StoreError.conflict(current: 1)) { try store.append(.create(a)) }
            #expect(try store.head(a) == head)
            #expect(try store.history(a, before: nil, limit: 10)?.revisions.map(\.revision) == [1])
        }
    }

    @Test(arguments: StoreKind.available)
    func malformedWritesAreRefused(_ kind: StoreKind) async throws {
        @Sendable func isInvalidWrite(_ error: StoreError?) -> Bool {
            if case .invalidWrite = error { return true }
            return false
        }
        try await kind.withStore { store in
            let a = uniqueID("a")
            var noSnapshot = RevisionWrite.create(a)
            noSnapshot.snapshot = nil
            #expect(isInvalidWrite(storeError { _ = try store.append(noSnapshot) }))
            var createWithDelta = RevisionWrite.create(a)
            createWithDelta.delta = [1]
            #expect(isInvalidWrite(storeError { _ = try store.append(createWithDelta) }))
            #expect(isInvalidWrite(storeError { _ = try store.append(.create("")) }))
            #expect(try store.head(a) == nil)
            _ = try store.append(.create(a))
            var noDelta = RevisionWrite.update(a, expected: 1)
            noDelta.delta = nil
            #expect(isInvalidWrite(storeError { _ = try store.append(noDelta) }))
            var negative = RevisionWrite.update(a, expected: 1)
            negative.itemCount = -1
            #expect(isInvalidWrite(storeError { _ = try store.append(negative) }))
            #expect(try store.head(a)?.revision == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func aRetentionBelowOneIsRefused(_ kind: StoreKind) async throws {
        await #expect(throws: StoreError.invalidWrite("retention must be at least 1")) {
            try await kind.withStore(retention: 0) { _ in Issue.record("a store opened with a retention of 0") }
        }
    }
}
