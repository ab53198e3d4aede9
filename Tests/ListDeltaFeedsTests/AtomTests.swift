import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct AtomTests {
    @Test func atomWithBaseRelativeLinksAndTextConstructs() throws {
        let feed = try Fixture.parse("atom.xml", baseURL: "https://ignored.example.net/feed")
        #expect(feed.format == .atom)
        #expect(feed.title == "Example Blog")
        #expect(feed.link == "https://blog.example.org/")
        #expect(feed.entries.count == 2)

        let first = feed.entries[0]
        #expect(first.title == "Atom powered robots", "an html title is shown as text")
        #expect(first.link == "https://blog.example.org/2026/11/robots")
        #expect(first.enclosure == FeedEnclosure(url: "https://blog.example.org/media/robots.mp3", type: "audio/mpeg", length: 1337))
        #expect(first.id == "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a")
        #expect(first.published?.timeIntervalSince1970 == utc(2026, 11, 25, 6, 30, 15).timeIntervalSince1970 + 0.25)
        #expect(first.updated == utc(2026, 11, 25, 9))
        #expect(first.authors == ["Alice", "bob@example.org"])
        #expect(first.categories == ["robots", "ai"])
        #expect(first.summary == "Some text & more.")
        #expect(first.content == #"<p>This is <b>XHTML</b> with &amp; an <a href="/x">anchor</a>.</p>"#)

        let second = feed.entries[1]
        #expect(second.link == "https://blog.example.org/archive/second.html", "the entry's xml:base applies")
        #expect(second.updated == utc(2026, 11, 24, 10))
        #expect(second.published == nil)
        #expect(second.authors == ["Feed Owner"], "entries without authors inherit the feed's")
        #expect(second.content == "<p>HTML &amp; escaped</p>")
    }

    @Test func baseURLAppliesWithoutXMLBase() throws {
        let text = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><link href="index.html"/>
            <entry><id>1</id><title>x</title><link href="posts/1"/></entry></feed>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: "https://host.example/blog/feed.xml", charset: nil)
        #expect(feed.link == "https://host.example/blog/index.html")
        #expect(feed.entries[0].link == "https://host.example/blog/posts/1")
    }

    @Test func feedInAnotherNamespaceIsNotAFeed() {
        let error = Fixture.error(Array("<feed xmlns=\"http://example.com/not-atom\"><entry/></feed>".utf8))
        #expect(error?.kind == .notAFeed)
        #expect(error?.message.contains("not Atom's") == true)
    }

    @Test func feedWithoutANamespaceAndItemsAsEntries() throws {
        let feed = try Fixture.parse("atom-no-namespace.xml")
        #expect(feed.format == .atom)
        #expect(feed.title == "Town council notices")
        #expect(feed.entries.map(\.title) == ["Road closure on Mill Lane", "Bin collection dates for December", "Library opening hours"])
        #expect(feed.entries[2].link == "https://council.example.gov/notices/library-hours", "an item is an entry")
        let bare = try FeedParser().parse(Array("<feed><entry><id bogus:attr=\"x\" xmlns:bogus=\"urn:b\">right</id></entry></feed>".utf8), baseURL: nil, charset: nil)
        #expect(bare.entries.map(\.id) == ["right"])
        let items = #"<feed xmlns="http://www.w3.org/2005/Atom"><item><title>one</title></item><entry><title>two</title></entry></feed>"#
        #expect(try FeedParser().parse(Array(items.utf8), baseURL: nil, charset: nil).entries.map(\.title) == ["one", "two"])
    }
}
