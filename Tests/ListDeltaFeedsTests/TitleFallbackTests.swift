import Foundation
import Testing
@testable import ListDeltaFeeds

/// Issue 43: titles readers find outside an entry's own `title` (Dublin Core, Media RSS) and base64 titles in Atom 1.0.
@Suite struct TitleFallbackTests {
    @Test func dublinCoreAndMediaTitles() throws {
        let feed = try Fixture.parse("extension-titles.xml", baseURL: "https://harbour.example.com/feed.rss")
        #expect(feed.entries.map(\.title) == [
            "Morning fog over the east pier", "Trawlers at low tide", "Gulls & gales", "The lifeboat launch", nil,
        ], "dc:title; media:title after a media:content; an html media:title in a media:group; the item's own title first; no title from an image inside a category")
    }

    @Test func dublinCoreBeforeMediaWhateverTheOrder() throws {
        let text = """
            <rss xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/"><channel>
            <item><media:title>media</media:title><dc:title>dc</dc:title></item>
            <item><media:content url="https://m.example/a.jpg"><media:title>nested</media:title></media:content></item>
            <item><media:title type="plain">AT&amp;amp;T</media:title></item>
            </channel></rss>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(feed.entries.map(\.title) == ["dc", "nested", "AT&T"], "a plain media:title is guessed like an RSS title")
    }

    @Test func atomEntriesFallBackToo() throws {
        let text = """
            <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
            <entry><id>1</id><media:group><media:title>Video &amp;lt;1&amp;gt;</media:title></media:group></entry></feed>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(feed.entries[0].title == "Video &lt;1&gt;", "in Atom a title that does not say its type is text as written")
    }

    @Test func atom10Base64Titles() throws {
        let feed = try Fixture.parse("atom-base64-titles.xml")
        #expect(feed.entries.map(\.title) == ["Build #412: \u{1F7E2} passed", "Build #411: failed & retried", "Build #410: passed"],
                "type=\"application/octet-stream\" decoded and kept as text; mode=\"base64\" html decoded and shown as text")
    }

    @Test func base64ByMediaType() throws {
        func title(_ attributes: String, _ body: String) throws -> String? {
            let text = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title \(attributes)>\(body)</title></entry></feed>"
            return try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil).entries[0].title
        }
        #expect(try title(#"type="application/octet-stream""#, "RXhhbXBsZSA8Yj5BdG9tPC9iPg==") == "Example <b>Atom</b>")
        #expect(try title(#"type="text/plain""#, "aGVsbG8=") == "aGVsbG8=", "text/… is not base64")
        #expect(try title(#"type="application/atom+xml""#, "aGVsbG8=") == "aGVsbG8=", "XML is not base64")
        #expect(try title(#"type="text" mode="base64""#, "aGVsbG8=") == "hello")
        #expect(try title(#"type="image/png""#, "iVBORw0KGgo=") == "iVBORw0KGgo=", "bytes that are not UTF-8 stay as written")
    }
}
