import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct RSSVariantsTests {
    @Test func rssWithoutAVersionAndWithCaseVariedNames() throws {
        let feed = try Fixture.parse("rss-unversioned.xml", baseURL: "https://feeds.example.com/dir/feed.xml")
        #expect(feed.format == .rss)
        #expect(feed.title == "Unversioned & Co", "a title that looks like HTML is shown as text")
        #expect(feed.subtitle == "No version attribute")
        #expect(feed.link == "https://news.example.com/")
        #expect(feed.entries.count == 3)
        let fish = feed.entries[0]
        #expect(fish.title == "Fish & Chips \u{2014} today")
        #expect(fish.link == "https://news.example.com/section/stories/fish.html")
        #expect(fish.id == "fish-1")
        #expect(fish.published == utc(2026, 11, 25, 8), "<PubDate>")
        #expect(fish.authors == ["Ann"])
        let bold = feed.entries[1]
        #expect(bold.title == "Bold move")
        #expect(bold.link == "https://cdn.example.net/a/c/bold.html", "<ITEM xml:base> and ../")
        #expect(feed.entries[2].title == "Q&A <3 plain", "no end tag, no reference: plain text")
        #expect(feed.entries[2].link == "https://news.example.com/qa", "a permalink guid")
    }

    @Test func rssInAnRSSNamespaceWithAnUnknownVersion() throws {
        let feed = try Fixture.parse("rss-namespaced.xml")
        #expect(feed.format == .rss)
        #expect(feed.title == "Namespaced RSS")
        #expect(feed.entries.map(\.title) == ["First \u{E9}l\u{E8}ve", "Only an atom:link"])
        #expect(feed.entries.map(\.link) == ["https://ns.example.com/1", "https://ns.example.com/2"])
        #expect(feed.entries.map(\.id) == ["https://ns.example.com/1", "two"])
    }

    @Test func rssItemsBesideTheChannel() throws {
        let text = "<rss><channel><title>c</title></channel><item><title>beside</title><link>https://x.example/1</link></item></rss>"
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(feed.entries.map(\.title) == ["beside"])
    }

    @Test func cdf() throws {
        let bytes = try Fixture.bytes("cdf.xml")
        #expect(try FeedParser.detect(bytes) == .cdf)
        let feed = try FeedParser().parse(bytes, baseURL: nil, charset: nil)
        #expect(feed.format == .cdf)
        #expect(feed.title == "CDF Channel")
        #expect(feed.subtitle == "A channel definition")
        #expect(feed.link == "http://cdf.example.com/index.html")
        #expect(feed.entries.map(\.title) == ["Item A", "Item B"])
        #expect(feed.entries.map(\.link) == ["http://cdf.example.com/a.html", "http://cdf.example.com/b.html"])
        #expect(feed.entries[0].summary == "First item")
        #expect(feed.entries[0].updated == utc(2026, 11, 20, 10))
    }

    @Test func cdfBaseAppliesToLinks() throws {
        let feed = try Fixture.parse("cdf-base.xml", baseURL: "https://feeds.example.com/news.cdf")
        #expect(feed.link == "http://www.example.com/news/")
        #expect(feed.entries.map(\.link) == [
            "http://www.example.com/news/today/weather.htm", "http://sports.example.com/scores/football.htm",
            "http://sports.example.com/tennis/index.htm", "http://archive.example.com/2026/11/",
        ], "the channel's BASE, a sub-channel's own, an absolute HREF")
        let relativeBase = #"<CHANNEL BASE="news/"><ITEM HREF="a.htm" BASE="/other/"/><ITEM HREF="b.htm"/></CHANNEL>"#
        let relative = try FeedParser().parse(Array(relativeBase.utf8), baseURL: "https://h.example/dir/f.cdf", charset: nil)
        #expect(relative.entries.map(\.link) == ["https://h.example/other/a.htm", "https://h.example/dir/news/b.htm"],
                "a BASE is resolved against the base it is in; an item's own BASE applies to its HREF")
    }

    @Test func cdfSubChannelsAndTheEntryLimit() throws {
        let text = """
            <channel href="https://c.example/"><item href="1"><title>1</title></item>
            <channel><item href="2"><title>2</title></item><item href="3"><title>3</title></item></channel></channel>
            """
        let feed = try FeedParser(limits: FeedLimits(maximumEntries: 2)).parse(Array(text.utf8), baseURL: "https://c.example/cdf/", charset: nil)
        #expect(feed.entries.map(\.link) == ["https://c.example/cdf/1", "https://c.example/cdf/2"])
        #expect(feed.droppedEntries == 1)
    }
}
