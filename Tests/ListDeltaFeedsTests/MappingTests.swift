import Foundation
import ListDeltaCore
import Testing
@testable import ListDeltaFeeds

@Suite struct MappingTests {
    /// The document must be one the list service accepts.
    private func validate(_ document: FeedDocument) throws {
        _ = try DataProviderFactory().makeDocument(from: document.json, listID: "feed", revision: 1)
    }

    private func items(_ json: JSONValue) -> [JSONObject] {
        let object = json.objectValue!
        if let items = object["items"]?.arrayValue { return items.compactMap(\.objectValue) }
        return object["sections"]!.arrayValue!.flatMap { $0.objectValue!["items"]!.arrayValue!.compactMap(\.objectValue) }
    }

    private func sections(_ json: JSONValue) -> [JSONObject] {
        json.objectValue!["sections"]!.arrayValue!.map { $0.objectValue! }
    }

    @Test func itemJSONHasEveryMember() throws {
        let feed = try Fixture.parse("rss2.xml", baseURL: "https://example.com/feed.xml")
        let document = FeedListMapping(grouping: .none, maximumItems: 100).document(from: feed)
        try validate(document)
        #expect(document.itemCount == 3)
        #expect(document.json.objectValue?["kind"] == "array")
        #expect(document.json.objectValue?["title"] == "Example & Co. News")
        let first = items(document.json)[0]
        #expect(first["id"] == "tag:example.com,2026:1")
        #expect(first["type"] == "FeedEntry")
        let model = try #require(first["model"]?.objectValue)
        #expect(model.keys == ["title", "link", "summary", "content", "published", "updated", "authors", "categories", "enclosure"])
        #expect(model["published"] == "2026-11-25T08:00:00Z")
        #expect(model["updated"] == .null)
        #expect(model["authors"] == ["Jane Roe"])
        #expect(model["categories"] == ["Swift", "Releases"])
        #expect(model["enclosure"] == ["url": "https://example.com/audio/ep1.mp3", "type": "audio/mpeg", "length": 12_345_678])
        let third = try #require(items(document.json)[2]["model"]?.objectValue)
        #expect(third["summary"] == .null && third["authors"] == .null && third["categories"] == .null)
        #expect(third["enclosure"] == ["url": "https://cdn.example.com/t3.jpg", "type": nil, "length": nil])
    }

    @Test func idFallbackChainDuplicatesAndLongIDs() throws {
        let date = utc(2026, 11, 25, 8)
        let long = "https://example.com/" + String(repeating: "x", count: 300)
        let feed = Feed(format: .rss, entries: [
            FeedEntry(id: "a", title: "with id", link: "https://example.com/a"),
            FeedEntry(title: "link only", link: "https://example.com/b"),
            FeedEntry(title: "neither", published: date),
            FeedEntry(id: "a", title: "duplicate id"),
            FeedEntry(title: "neither", published: date),  // same hash: a duplicate
            FeedEntry(id: long, title: "long"),
            FeedEntry(id: "  ", title: "blank id", link: "https://example.com/c"),
        ])
        let document = FeedListMapping(grouping: .none, maximumItems: 100).document(from: feed)
        try validate(document)
        let ids = items(document.json).map { $0["id"]!.stringValue! }
        #expect(document.duplicates == 2)
        #expect(ids.count == 5 && document.itemCount == 5)
        #expect(ids[0] == "a")
        #expect(ids[1] == "https://example.com/b")
        #expect(ids[2].hasPrefix("h-") && ids[2].utf8.count == 34)
        #expect(ids[3].hasPrefix("h-") && ids[3] != ids[2])
        #expect(ids[4] == "https://example.com/c")
        #expect(items(document.json)[0]["model"]?.objectValue?["title"] == "with id", "the first of equal ids wins")
        // Stable across runs and machines: a fixed value.
        #expect(FeedListMapping.itemID(for: FeedEntry(title: "neither", published: date)) == StableHash.identifier(of: Array("neither\u{0}2026-11-25T08:00:00Z".utf8)))
        #expect(StableHash.identifier(of: Array("abc".utf8)) == "h-e71fa2190541574b" + StableHash.identifier(of: Array("abc".utf8)).suffix(16))
    }

    @Test func maximumItemsKeepsTheFirst() throws {
        let feed = try FeedParser().parse(SyntheticFeed.rss(entries: 50, seed: 0), baseURL: nil, charset: nil)
        let document = FeedListMapping(grouping: .none, maximumItems: 7).document(from: feed)
        try validate(document)
        #expect(document.itemCount == 7)
        #expect(items(document.json).map { $0["id"]!.stringValue! } == (0..<7).map { "urn:synthetic:\($0)" })
    }

    @Test func dayGroupingNewestFirstWithUndatedLast() throws {
        let feed = Feed(format: .atom, title: "t", entries: [
            FeedEntry(id: "1", published: utc(2026, 11, 24, 23, 59)),
            FeedEntry(id: "2", published: utc(2026, 11, 25, 1)),
            FeedEntry(id: "3"),
            FeedEntry(id: "4", updated: utc(2026, 11, 24, 0, 0)),
            FeedEntry(id: "5", published: utc(2026, 11, 25, 0)),
        ])
        let document = FeedListMapping(grouping: .day, maximumItems: 100).document(from: feed)
        try validate(document)
        let sections = sections(document.json)
        #expect(sections.map { $0["id"]! } == ["2026-11-25", "2026-11-24", "undated"])
        #expect(sections[0]["title"] == "2026-11-25" && sections[0]["indexTitle"] == "25")
        #expect(sections[2]["title"] == "Undated" && sections[2]["indexTitle"] == .null)
        #expect(sections.map { $0["items"]!.arrayValue!.map { $0.objectValue!["id"]! } } == [["2", "5"], ["1", "4"], ["3"]])
    }

    @Test func categoryGroupingInOrderOfAppearance() throws {
        let long = String(repeating: "c", count: 300)
        let feed = Feed(format: .rss, entries: [
            FeedEntry(id: "1", categories: ["swift", "x"]),
            FeedEntry(id: "2"),
            FeedEntry(id: "3", categories: ["uncategorized"]),
            FeedEntry(id: "4", categories: ["éclair"]),
            FeedEntry(id: "5", categories: ["swift"]),
            FeedEntry(id: "6", categories: [long]),
        ])
        let document = FeedListMapping(grouping: .category, maximumItems: 100).document(from: feed)
        try validate(document)
        let sections = sections(document.json)
        let ids = sections.map { $0["id"]!.stringValue! }
        #expect(Array(ids.prefix(3)) == ["swift", "uncategorized", "éclair"])
        #expect(ids[3].hasPrefix("h-"))
        #expect(ids[4] == "uncategorized-1", "the fallback section never collides with a real category")
        #expect(sections[4]["title"] == "Uncategorized" && sections[4]["indexTitle"] == .null)
        #expect(sections[0]["indexTitle"] == "S" && sections[2]["indexTitle"] == "É")
        #expect(sections[3]["title"] == .string(long))
        #expect(sections[0]["items"]!.arrayValue!.map { $0.objectValue!["id"]! } == ["1", "5"])
    }

    @Test(arguments: SectionGrouping.allCases)
    func sameBytesGiveEqualJSON(grouping: SectionGrouping) throws {
        for name in ["rss2.xml", "atom.xml", "feed11.json", "rss10.rdf"] {
            let first = FeedListMapping(grouping: grouping, maximumItems: 100).document(from: try Fixture.parse(name))
            let second = FeedListMapping(grouping: grouping, maximumItems: 100).document(from: try Fixture.parse(name))
            try validate(first)
            #expect(first == second)
            #expect(JSONWriter.bytes(of: first.json) == JSONWriter.bytes(of: second.json))
        }
        let big = try FeedParser().parse(SyntheticFeed.atom(entries: 300, seed: 0), baseURL: nil, charset: nil)
        let one = FeedListMapping(grouping: grouping, maximumItems: 1000).document(from: big)
        try validate(one)
        #expect(JSONWriter.bytes(of: one.json) == JSONWriter.bytes(of: FeedListMapping(grouping: grouping, maximumItems: 1000).document(from: big).json))
    }

    @Test func aChangedSeedChangesAFewEntries() throws {
        let before = try FeedParser().parse(SyntheticFeed.rss(entries: 500, seed: 1), baseURL: nil, charset: nil)
        let after = try FeedParser().parse(SyntheticFeed.rss(entries: 500, seed: 2), baseURL: nil, charset: nil)
        let changed = zip(before.entries, after.entries).filter { $0 != $1 }.count
        #expect(changed > 0 && changed < 50)
        #expect(before.entries.map(\.id) == after.entries.map(\.id))
        #expect(SyntheticFeed.rss(entries: 20, seed: 3) == SyntheticFeed.rss(entries: 20, seed: 3))
    }
}
