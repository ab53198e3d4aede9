import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct RSSTests {
    @Test func rss2WithNamespacesCDATAAndEntities() throws {
        let feed = try Fixture.parse("rss2.xml", baseURL: "https://example.com/feed.xml")
        #expect(feed.format == .rss)
        #expect(feed.title == "Example & Co. News")
        #expect(feed.link == "https://example.com/news/")
        #expect(feed.entries.count == 3)

        let first = feed.entries[0]
        #expect(first.title == "Swift 6 <released> & ready")
        #expect(first.id == "tag:example.com,2026:1")
        #expect(first.link == "https://example.com/news/swift-6")
        #expect(first.summary == "<p>The <b>short</b> version.</p>")
        #expect(first.content == #"<p>The full <i>story</i>, with <a href="/x">a link</a>.</p>"#)
        #expect(first.published == utc(2026, 11, 25, 8))
        #expect(first.authors == ["Jane Roe"])
        #expect(first.categories == ["Swift", "Releases"])
        #expect(first.enclosure == FeedEnclosure(url: "https://example.com/audio/ep1.mp3", type: "audio/mpeg", length: 12_345_678))

        let second = feed.entries[1]
        #expect(second.title == "Café ☕ <open> \"late\"")
        #expect(second.link == "https://example.com/relative/item-2")
        #expect(second.published == utc(2026, 11, 24, 22, 30))
        #expect(second.authors == ["editor@example.com (The Editor)"])
        #expect(second.categories == ["Food"])
        #expect(second.summary == "Coffee &amp; cake")
        #expect(second.enclosure == FeedEnclosure(url: "https://cdn.example.com/cafe.jpg", type: "image/jpeg", length: 2048))

        let third = feed.entries[2]
        #expect(third.link == "https://example.com/news/3", "a permalink guid is the link when there is none")
        #expect(third.published == utc(2026, 11, 23, 9))
        #expect(third.enclosure == FeedEnclosure(url: "https://cdn.example.com/t3.jpg"))
        #expect(third.summary == nil && third.content == nil && third.authors.isEmpty)
    }

    @Test func rss091WithExternalDTDReference() throws {
        let feed = try Fixture.parse("rss091.xml")
        #expect(feed.format == .rss)
        #expect(feed.title == "WriteTheWeb")
        #expect(feed.link == "http://writetheweb.com")
        #expect(feed.entries.map(\.title) == ["Giving the world a pluggable Gnutella", "Syndication discussions hot up"])
        #expect(feed.entries[1].link == "http://writetheweb.com/read.php?item=23")
        #expect(feed.entries[0].id == nil)
    }

    @Test func rss10ItemsBesideTheChannel() throws {
        let feed = try Fixture.parse("rss10.rdf")
        #expect(feed.format == .rdf)
        #expect(feed.title == "XML.com")
        #expect(feed.link == "http://xml.com/pub")
        #expect(feed.entries.count == 2)
        #expect(feed.entries[0].id == "http://xml.com/pub/2000/08/09/xslt/xslt.html")
        #expect(feed.entries[0].published == utc(2000, 8, 9, 12))
        #expect(feed.entries[0].authors == ["Bob DuCharme"])
        #expect(feed.entries[0].categories == ["XSLT"])
        #expect(feed.entries[1].title == "Putting RDF to Work")
    }

    @Test func limitsDropEntriesAndCutTexts() throws {
        let bytes = SyntheticFeed.rss(entries: 30, seed: 0)
        let feed = try FeedParser(limits: FeedLimits(maximumEntries: 10, maximumTextBytes: 21)).parse(bytes, baseURL: nil, charset: nil)
        #expect(feed.entries.count == 10)
        #expect(feed.droppedEntries == 20)
        #expect(feed.entries.allSatisfy { ($0.summary?.utf8.count ?? 0) <= 21 })
        // A cut never splits a character: "é" is two bytes and "☕" three.
        #expect(FeedText.cut("aé☕b", toBytes: 2) == "a")
        #expect(FeedText.cut("aé☕b", toBytes: 5) == "aé")
        #expect(FeedText.cut("aé☕b", toBytes: 6) == "aé☕")
    }

    @Test func toleratesUndeclaredPrefixesAndXML11() throws {
        let text = """
            <?xml version="1.1"?><rss version="2.0"><channel><title>t</title>
            <item><title>x</title><dc:creator>Undeclared Prefix</dc:creator><content:encoded>full</content:encoded></item>
            </channel></rss>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(feed.entries.first?.authors == ["Undeclared Prefix"])
        #expect(feed.entries.first?.content == "full")
    }

    @Test func tooDeepNestingIsMalformed() throws {
        let deep = "<rss version=\"2.0\"><channel>" + String(repeating: "<x>", count: 100) + String(repeating: "</x>", count: 100)
            + "</channel></rss>"
        let error = Fixture.error(Array(deep.utf8))
        #expect(error?.kind == .malformed)
        #expect(error?.message.contains("deeper than 64") == true)
        // Within the limit it reads.
        let shallow = "<rss version=\"2.0\"><channel><title>t</title>" + String(repeating: "<x>", count: 50)
            + String(repeating: "</x>", count: 50) + "</channel></rss>"
        #expect(Fixture.error(Array(shallow.utf8)) == nil)
    }
}
