import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct Atom03Tests {
    @Test func atom03MapsToTheAtom10Model() throws {
        let feed = try Fixture.parse("atom03.xml", baseURL: "https://ignored.example.net/feed")
        #expect(feed.format == .atom)
        #expect(feed.title == "Old Blog & more", "mode=\"escaped\" text/html is shown as text")
        #expect(feed.subtitle == "Notes from 2005", "tagline")
        #expect(feed.info == "This is an Atom 0.3 feed.")
        #expect(feed.link == "https://old.example.org/blog/index.html")
        #expect(feed.entries.count == 3)

        let escaped = feed.entries[0]
        #expect(escaped.id == "tag:old.example.org,2005:1")
        #expect(escaped.title == "Escaped content")
        #expect(escaped.link == "https://old.example.org/blog/2005/11/escaped.html", "the alternate link, not the related one before it")
        #expect(escaped.published == utc(2005, 11, 25, 6, 30), "issued")
        #expect(escaped.updated == utc(2005, 11, 25, 9), "modified")
        #expect(escaped.content == "<p>Escaped &amp; HTML</p>", "mode=\"escaped\": the markup once unescaped")
        #expect(escaped.authors == ["Old Owner"], "inherited from the feed")

        let base64 = feed.entries[1]
        #expect(base64.title == "Base64 title", "mode=\"base64\" text/html, decoded and shown as text")
        #expect(base64.content == "<p>Base64 content</p>")
        #expect(base64.link == "https://old.example.org/archive/base64.html")
        #expect(base64.published == utc(2005, 11, 24, 10), "created, when there is no issued")
        #expect(base64.updated == nil)

        let xml = feed.entries[2]
        #expect(xml.title == "Inline XHTML title", "mode=\"xml\" XHTML, its text")
        #expect(xml.content == "<p>Inline <i>XHTML</i> content</p>", "mode=\"xml\": the markup inside the div")
        #expect(xml.summary == "Plain summary")
        #expect(xml.link == "https://other.example.net/xml.html", "the entry's xml:base")
    }

    @Test func atom03WithoutANamespaceButWithItsVersion() throws {
        let text = """
            <feed version="0.3"><title>No namespace</title><entry><id>e1</id><title>T</title>
            <link rel="alternate" type="text/html" href="e1.html"/><issued>2005-01-02T03:04:05Z</issued></entry></feed>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: "https://host.example/feed", charset: nil)
        #expect(feed.format == .atom)
        #expect(feed.entries.map(\.link) == ["https://host.example/e1.html"])
        #expect(feed.entries[0].published == utc(2005, 1, 2, 3, 4, 5))
    }

    @Test func textConstructsOfEachKind() throws {
        func construct(_ attributes: String, _ body: String) throws -> AtomText {
            let text = "<feed xmlns=\"http://purl.org/atom/ns#\"><title \(attributes)>\(body)</title></feed>"
            let input = try XMLFeedDocument.prepare(Array(text.utf8), charset: nil)
            let root = try XMLFeedDocument.load(input, baseURL: nil, limits: FeedLimits())
            return AtomText(try #require(root.children.first))
        }
        #expect(try construct("", "a &lt;b&gt; c").plain == "a <b> c", "text stays text")
        #expect(try construct("mode=\"escaped\" type=\"text/plain\"", "a &lt;b&gt; c").plain == "a <b> c")
        #expect(try construct("mode=\"escaped\"", "a &lt;b&gt;c&lt;/b&gt;").plain == "a c", "escaped without a type is HTML")
        #expect(try construct("type=\"html\"", "x &amp;eacute; &lt;br/&gt;y").plain == "x é y")
        #expect(try construct("mode=\"base64\" type=\"text/plain\"", "aGVsbG8=").value == "hello")
        let inline = try construct("type=\"text/html\" mode=\"xml\"", "<b xmlns=\"http://www.w3.org/1999/xhtml\">bold</b> text")
        #expect(inline.kind == .xhtml)
        #expect(inline.value == "<b>bold</b> text")
        #expect(inline.plain == "bold text")
    }
}
