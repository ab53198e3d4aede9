import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// History pages and summaries, and the undo diffs that walk back from a revision.
@Suite struct HistoryContractTests {
    private func summary(_ origin: RevisionOrigin, at milliseconds: Int64, items: Int) -> RevisionSummary {
        RevisionSummary(
            committedAtMilliseconds: milliseconds, origin: origin, sectionCount: 1, itemCount: items,
            sectionChanges: OperationCounts(), itemChanges: OperationCounts(deleted: 1, inserted: 2, moved: 3, updated: 4))
    }

    /// A create and `count - 1` updates, each with a summary and an undo diff; origins cycle through every kind.
    private func write(_ store: any ContractStore, _ id: String, count: Int) throws {
        var create = RevisionWrite.create(id)
        create.summary = summary(.put, at: 1_000, items: 0)
        _ = try store.append(create)
        let origins: [RevisionOrigin] = [.patch, .revert(to: 1), .source, .put, .view(of: "base", revision: 7)]
        for expected in 1..<count {
            var update = RevisionWrite.update(id, expected: expected, checkpoint: expected % 4 == 0)
            update.summary = summary(origins[expected % origins.count], at: 1_000 + Int64(expected), items: expected)
            _ = try store.append(update)
        }
    }

    @Test(arguments: StoreKind.available)
    func pagesRunNewestFirstWithEverySummaryField(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            try write(store, a, count: 7)
            let first = try #require(try store.history(a, before: nil, limit: 3))
            #expect(first.revisions.map(\.revision) == [7, 6, 5])
            #expect(first.hasMore)
            #expect(first.head == (try store.head(a)))
            #expect(first.revisions[0] == RevisionSummary(
                revision: 7, committedAtMilliseconds: 1_006, origin: .revert(to: 1), sectionCount: 1, itemCount: 6,
                sectionChanges: OperationCounts(), itemChanges: OperationCounts(deleted: 1, inserted: 2, moved: 3, updated: 4)))
            #expect(first.revisions[1].origin == .patch && first.revisions[2].origin == .view(of: "base", revision: 7))
            let second = try #require(try store.history(a, before: 5, limit: 3))
            #expect(second.revisions.map(\.revision) == [4, 3, 2])
            #expect(second.revisions.map(\.origin) == [.put, .source, .revert(to: 1)])
            let last = try #require(try store.history(a, before: 2, limit: 3))
            #expect(last.revisions.map(\.revision) == [1])
            #expect(last.revisions[0].origin == .put && !last.hasMore)
            #expect(try store.history(a, before: 1, limit: 3)?.revisions == [])
            #expect(try store.history(a, before: 100, limit: 1)?.revisions.map(\.revision) == [7])
            #expect(try store.history(a, before: nil, limit: 7)?.hasMore == false)
            #expect(try store.history(uniqueID("missing"), before: nil, limit: 3) == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func onlyServedRevisionsOfTheCurrentIncarnationAreShown(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 3) { store in
            let a = uniqueID("a")
            try write(store, a, count: 9)
            // Rows from checkpoint 5 are kept to rebuild 7, but only 7...9 are served.
            let page = try #require(try store.history(a, before: nil, limit: 100))
            #expect(page.revisions.map(\.revision) == [9, 8, 7])
            #expect(!page.hasMore)
            _ = try store.delete(a, expectedRevision: nil)
            #expect(try store.history(a, before: nil, limit: 10) == nil)
            var recreate = RevisionWrite.create(a)
            recreate.summary = summary(.put, at: 5_000, items: 0)
            _ = try store.append(recreate)
            #expect(try store.history(a, before: nil, limit: 10)?.revisions.map(\.revision) == [10])
            #expect(try store.history(a, before: nil, limit: 10)?.revisions.first?.committedAtMilliseconds == 5_000)
        }
    }

    @Test(arguments: StoreKind.available)
    func aRevisionWithoutASummarySaysItHasNone(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            var create = RevisionWrite.create(a)
            create.summary = nil
            _ = try store.append(create)
            #expect(try store.history(a, before: nil, limit: 1)?.revisions == [
                RevisionSummary(
                    revision: 1, committedAtMilliseconds: nil, origin: nil, sectionCount: nil, itemCount: nil, sectionChanges: nil,
                    itemChanges: nil)
            ])
        }
    }

    @Test(arguments: StoreKind.available)
    func undoChainsRunNewestFirstOverServedRevisions(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 5) { store in
            let a = uniqueID("a")
            try write(store, a, count: 9)
            let chain = try #require(try store.undoChain(a, from: 9, downTo: 5))
            #expect(chain.map(\.revision) == [9, 8, 7, 6])
            #expect(chain.map(\.undo) == (6...9).reversed().map { blob(3, revision: $0, count: 6) })
            #expect(try store.undoChain(a, from: 9, downTo: 9) == [])
            #expect(try store.undoChain(a, from: 7, downTo: 6)?.map(\.revision) == [7])
            #expect(try store.undoChain(a, from: 9, downTo: 4) == nil, "4 is no longer served")
            #expect(try store.undoChain(a, from: 10, downTo: 6) == nil, "10 does not exist")
            #expect(try store.undoChain(a, from: 6, downTo: 7) == nil, "the target is above the start")
            #expect(try store.undoChain(uniqueID("missing"), from: 1, downTo: 1) == nil)
        }
    }
}
