import ListDeltaStorage
import Testing
@testable import ListDeltaSQLite

@Suite struct ListsTests {
    @Test func pagesInByteOrderWithoutDeletedLists() throws {
        try withStore { store, _ in
            let ids = ["b", "a", "B", "ab", "é", "z", "\u{FF5E}", "😀", "Z", "a b", "gone"]
            for id in ids { _ = try store.append(.create(id)) }
            _ = try store.delete("gone", expectedRevision: nil)
            let expected = ids.filter { $0 != "gone" }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }

            var seen: [String] = []
            var after: String? = nil
            while true {
                let page = try store.lists(after: after, limit: 3)
                #expect(page.count <= 3)
                #expect(page.allSatisfy { !$0.isDeleted })
                guard let last = page.last else { break }
                seen += page.map(\.id)
                after = last.id
            }
            #expect(seen == expected)
            #expect(try store.lists(after: nil, limit: 100).map(\.id) == expected)
            #expect(try store.lists(after: "a", limit: 2).map(\.id) == ["a b", "ab"])
            #expect(try store.lists(after: nil, limit: 0).isEmpty)
            #expect(try store.head("gone")?.isDeleted == true)
        }
    }
}
