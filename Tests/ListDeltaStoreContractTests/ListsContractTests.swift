import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Lists paging: live lists in byte order of their ids, tombstones skipped.
@Suite struct ListsContractTests {
    @Test(arguments: StoreKind.available)
    func listsPageInByteOrderWithoutDeletedLists(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            // Every id under one prefix: other tests' lists (on the shared database) sort before or after them all.
            let prefix = uniqueID("lists") + "-"
            let names = ["b", "a", "B", "ab", "é", "z", "\u{FF5E}", "😀", "Z", "a b", "gone"]
            for name in names { _ = try store.append(.create(prefix + name)) }
            _ = try store.delete(prefix + "gone", expectedRevision: nil)
            // "B" < "a" < "é" in byte order, whatever a database's locale says.
            let expected = names.filter { $0 != "gone" }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(expected == ["B", "Z", "a", "a b", "ab", "b", "z", "é", "\u{FF5E}", "😀"])

            var seen: [String] = []
            var after = prefix
            paging: while true {
                let page = try store.lists(after: after, limit: 3)
                #expect(page.count <= 3)
                #expect(page.allSatisfy { !$0.isDeleted })
                for head in page {
                    guard head.id.hasPrefix(prefix) else { break paging }
                    seen.append(String(head.id.dropFirst(prefix.count)))
                }
                guard let last = page.last else { break }
                after = last.id
            }
            #expect(seen == expected)
            #expect(try store.lists(after: prefix, limit: 100).prefix(expected.count).map(\.id) == expected.map { prefix + $0 })
            #expect(try store.lists(after: prefix + "a", limit: 2).map(\.id) == [prefix + "a b", prefix + "ab"])
            #expect(try store.lists(after: prefix + "Z", limit: 1).map(\.id) == [prefix + "a"])
            #expect(try store.lists(after: nil, limit: 0).isEmpty)
            #expect(try store.head(prefix + "gone")?.isDeleted == true)
        }
    }

    @Test(arguments: StoreKind.available)
    func aListedHeadIsTheListsHead(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("listed")
            _ = try store.append(.create(a, kind: "sections"))
            let head = try store.append(.update(a, expected: 1, checkpoint: true))
            #expect(try store.lists(after: String(a.dropLast()), limit: 1) == [head])
            #expect(head.kind == "plain", "each revision gives the list's kind")
        }
    }
}
