import Foundation
import Testing
@testable import ListDeltaFeeds

/// The benchmark's feeds (`listdelta-bench feed` times them; no timing here): both formats read back whole, and a
/// new seed changes a few entries and nothing else.
@Suite struct SyntheticFeedTests {
    @Test(arguments: ["rss", "atom"])
    func everyEntryReadsBack(format: String) throws {
        let bytes = format == "rss" ? SyntheticFeed.rss(entries: 500, seed: 1) : SyntheticFeed.atom(entries: 500, seed: 1)
        let feed = try FeedParser().parse(bytes, baseURL: "https://news.example.com/feed", charset: nil)
        #expect(feed.format == (format == "rss" ? .rss : .atom))
        #expect(feed.entries.count == 500)
        #expect(feed.entries.allSatisfy { $0.categories.count == 2 && $0.published != nil && $0.link != nil })
        #expect(Set(feed.entries.compactMap(\.id)).count == 500)
    }

    @Test func aNewSeedRevisesAFewEntries() throws {
        let before = try FeedParser().parse(SyntheticFeed.rss(entries: 1_000, seed: 1), baseURL: nil, charset: nil)
        let after = try FeedParser().parse(SyntheticFeed.rss(entries: 1_000, seed: 2), baseURL: nil, charset: nil)
        #expect(before.entries.map(\.id) == after.entries.map(\.id))
        let revised = zip(before.entries, after.entries).filter { $0 != $1 }.count
        #expect((10...100).contains(revised), "\(revised) entries differ")
        #expect(SyntheticFeed.rss(entries: 50, seed: 3) == SyntheticFeed.rss(entries: 50, seed: 3))
    }
}
