import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Deletes and tombstones: a deleted list keeps its last revision, and a recreated one continues after it.
@Suite struct DeleteContractTests {
    @Test(arguments: StoreKind.available)
    func numberingContinuesAfterADeleteAndARecreate(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            _ = try store.append(.update(a, expected: 1))
            _ = try store.append(.update(a, expected: 2))

            let before = try #require(try store.delete(a, expectedRevision: nil))
            #expect(before.revision == 3)
            #expect(!before.isDeleted)
            let tombstone = try #require(try store.head(a))
            #expect(tombstone.isDeleted)
            #expect(tombstone.revision == 3)
            #expect(tombstone.deltaBytesSinceCheckpoint == 0 && tombstone.checkpointBytes == 0)
            // Nothing of a deleted list is served.
            #expect(try store.chain(a, upTo: 3) == nil)
            #expect(try store.history(a, before: nil, limit: 10) == nil)
            #expect(try store.undoChain(a, from: 3, downTo: 2) == nil)
            #expect(try store.rebuildCosts(a, revision: 2, from: 3) == nil)
            #expect(throws: StoreError.conflict(current: nil)) { try store.append(.update(a, expected: 3)) }

            let recreated = try store.append(.create(a, revision: 4))
            #expect(recreated.revision == 4)
            #expect(recreated.firstRevision == 4)
            #expect(recreated.oldestRevision == 4)
            #expect(try store.chain(a, upTo: 3) == nil)
            #expect(try store.chain(a, upTo: 4)?.map(\.revision) == [4])
            #expect(try store.chain(a, upTo: 4)?.first?.snapshot == blob(1, revision: 4, count: 32))
            #expect(try store.append(.update(a, expected: 4)).revision == 5)

            _ = try store.delete(a, expectedRevision: 5)
            #expect(try store.append(.create(a)).revision == 6)
        }
    }

    @Test(arguments: StoreKind.available)
    func aDeleteChecksTheExpectedRevision(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            _ = try store.append(.update(a, expected: 1))
            #expect(throws: StoreError.conflict(current: 2)) { try store.delete(a, expectedRevision: 1) }
            #expect(try store.head(a)?.isDeleted == false)
            #expect(try store.chain(a, upTo: 2)?.map(\.revision) == [1, 2])
            #expect(try store.delete(a, expectedRevision: 2)?.revision == 2)
        }
    }

    @Test(arguments: StoreKind.available)
    func deletingAnAbsentOrDeletedListReturnsNil(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let missing = uniqueID("missing")
            #expect(try store.delete(missing, expectedRevision: nil) == nil)
            #expect(try store.head(missing) == nil, "no tombstone for a list that never was")
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            #expect(try store.delete(a, expectedRevision: nil) != nil)
            #expect(try store.delete(a, expectedRevision: nil) == nil)
            #expect(try store.delete(a, expectedRevision: 1) == nil)
            #expect(try store.head(a)?.isDeleted == true)
        }
    }
}
