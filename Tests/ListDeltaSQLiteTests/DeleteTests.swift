import ListDeltaStorage
import Testing
@testable import ListDeltaSQLite

@Suite struct DeleteTests {
    @Test func numberingContinuesAfterDeleteAndRecreate() throws {
        try withStore { store, _ in
            _ = try store.append(.create("a"))
            _ = try store.append(.update("a", expected: 1))
            _ = try store.append(.update("a", expected: 2))

            let before = try #require(try store.delete("a", expectedRevision: nil))
            #expect(before.revision == 3)
            #expect(!before.isDeleted)
            let tombstone = try #require(try store.head("a"))
            #expect(tombstone.isDeleted)
            #expect(tombstone.revision == 3)
            #expect(try store.chain("a", upTo: 3) == nil)
            #expect(try store.revisionRowCount("a") == 0)
            #expect(throws: StoreError.conflict(current: nil)) { try store.append(.update("a", expected: 3)) }

            let recreated = try store.append(.create("a"))
            #expect(recreated.revision == 4)
            #expect(recreated.firstRevision == 4)
            #expect(recreated.oldestRevision == 4)
            #expect(try store.chain("a", upTo: 3) == nil)
            #expect(try store.chain("a", upTo: 4)?.map(\.revision) == [4])

            _ = try store.delete("a", expectedRevision: 4)
            #expect(try store.append(.create("a")).revision == 5)
        }
    }

    @Test func deleteChecksExpectedRevision() throws {
        try withStore { store, _ in
            _ = try store.append(.create("a"))
            _ = try store.append(.update("a", expected: 1))
            #expect(throws: StoreError.conflict(current: 2)) { try store.delete("a", expectedRevision: 1) }
            #expect(try store.head("a")?.isDeleted == false)
            #expect(try store.delete("a", expectedRevision: 2)?.revision == 2)
        }
    }

    @Test func deleteOfAbsentOrDeletedListReturnsNil() throws {
        try withStore { store, _ in
            #expect(try store.delete("missing", expectedRevision: nil) == nil)
            #expect(try store.head("missing") == nil)
            _ = try store.append(.create("a"))
            #expect(try store.delete("a", expectedRevision: nil) != nil)
            #expect(try store.delete("a", expectedRevision: nil) == nil)
            #expect(try store.delete("a", expectedRevision: 1) == nil)
        }
    }
}
