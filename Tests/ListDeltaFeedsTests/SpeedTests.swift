import Foundation
import Testing
@testable import ListDeltaFeeds

/// Parse speed on 10,000-entry synthetic feeds; prints MB/s (meaningful in release builds:
/// `swift test -c release --filter SpeedTests`).
@Suite struct SpeedTests {
    @Test(arguments: ["rss", "atom"])
    func tenThousandEntries(format: String) throws {
        let bytes = format == "rss" ? SyntheticFeed.rss(entries: 10_000, seed: 1) : SyntheticFeed.atom(entries: 10_000, seed: 1)
        var best = Duration.seconds(1000)
        var feed: Feed?
        for _ in 0..<3 {
            let start = ContinuousClock.now
            feed = try FeedParser().parse(bytes, baseURL: "https://news.example.com/feed", charset: nil)
            best = min(best, ContinuousClock.now - start)
        }
        let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
        let megabytes = Double(bytes.count) / 1_000_000
        print("\(format): \(String(format: "%.1f", megabytes)) MB, 10000 entries in \(String(format: "%.1f", seconds * 1000)) ms = \(String(format: "%.1f", megabytes / seconds)) MB/s")
        #expect(feed?.entries.count == 10_000)
        #expect(feed?.entries.last?.categories.count == 2)
        let start = ContinuousClock.now
        let document = FeedListMapping(grouping: .day, maximumItems: 10_000).document(from: feed!)
        print("\(format): mapping to a day-grouped document: \(ContinuousClock.now - start)")
        #expect(document.itemCount == 10_000)
    }
}
