import Foundation
import Testing
@testable import ListDeltaFeeds

/// Issue 38: a feed's links are only ever `http(s)` URLs, in every format; ids stay as written.
@Suite struct LinkSafetyTests {
    @Test func otherSchemesAreDroppedAndTheNextCandidateTaken() throws {
        let feed = try Fixture.parse("unsafe-links.xml", baseURL: "https://board.example.com/feed.xml")
        #expect(feed.entries.map(\.link) == [
            nil, "https://board.example.com/posts/lost-cat", nil, nil, nil, "https://board.example.com/posts/snow-rota",
        ], "javascript:, JavaScript: (the permalink guid instead), data:, vbscript:, file:")
        #expect(feed.entries[1].id == "https://board.example.com/posts/lost-cat")
        #expect(feed.entries[3].id == "board-7731", "ids stay as they are")
    }

    @Test(arguments: [
        ("https://example.com/a", true), ("http://example.com", true), ("HTTPS://Example.com/", true),
        ("http://[2001:db8::1]:8080/x", true), ("http://user@host/", true),
        ("javascript:alert(1)", false), ("data:text/html,x", false), ("vbscript:x", false), ("file:///etc/passwd", false),
        ("ftp://example.com/", false), ("mailto:a@example.com", false), ("httpx://example.com/", false),
        ("http:example.com", false), ("http:///path", false), ("http://example.c[o.test/", false), ("//example.com/a", false),
        ("posts/1.html", false), ("", false),
    ])
    func webURLs(url: String, isWeb: Bool) {
        #expect(WebLink.isWeb(url) == isWeb)
    }

    @Test func resolvedLinksAreCheckedAndTheirSchemeLowerCased() {
        #expect(WebLink.resolve("posts/1", against: "https://h.example/feed.xml") == "https://h.example/posts/1")
        #expect(WebLink.resolve("posts/1", against: nil) == nil, "no base: not an absolute URL")
        #expect(WebLink.resolve("posts/1", against: "file:///srv/feeds/news.xml") == nil, "a file: source's relative link")
        #expect(WebLink.resolve(" JavaScript:alert(1) ", against: "https://h.example/") == nil)
        #expect(WebLink.resolve("HTTP://Example.org/Thing", against: nil) == "http://Example.org/Thing")
    }

    @Test func atomCDFAndJSONFeedLinksAndEnclosuresToo() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><link href="javascript:home()"/>
            <entry><id>javascript:alert(1)</id><link href="javascript:a()"/><link href="data:,x"/>
            <link rel="enclosure" href="javascript:b()"/></entry>
            <entry><id>2</id><link href="vbscript:x"/><link href="https://ok.example/2"/></entry></feed>
            """
        let atomFeed = try FeedParser().parse(Array(atom.utf8), baseURL: "https://h.example/", charset: nil)
        #expect(atomFeed.link == nil)
        #expect(atomFeed.entries.map(\.link) == [nil, "https://ok.example/2"], "the next http(s) alternate")
        #expect(atomFeed.entries[0].enclosure == nil)
        #expect(atomFeed.entries[0].id == "javascript:alert(1)", "kept as the id, never the link")

        let rss = """
            <rss xmlns:atom="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/"><channel>
            <link>javascript:x</link><item><link>javascript:x</link><atom:link href="https://ok.example/a"/>
            <enclosure url="javascript:y"/><media:content url="data:,z"/><media:thumbnail url="thumb.jpg"/></item>
            </channel></rss>
            """
        let rssFeed = try FeedParser().parse(Array(rss.utf8), baseURL: "https://h.example/", charset: nil)
        #expect(rssFeed.link == nil)
        #expect(rssFeed.entries[0].link == "https://ok.example/a")
        #expect(rssFeed.entries[0].enclosure == FeedEnclosure(url: "https://h.example/thumb.jpg"))

        let cdf = #"<CHANNEL HREF="javascript:x"><ITEM HREF="javascript:y"/><ITEM HREF="b.htm"/></CHANNEL>"#
        let cdfFeed = try FeedParser().parse(Array(cdf.utf8), baseURL: "https://h.example/c/", charset: nil)
        #expect(cdfFeed.link == nil)
        #expect(cdfFeed.entries.map(\.link) == [nil, "https://h.example/c/b.htm"])

        let json = """
            {"version":"https://jsonfeed.org/version/1.1","home_page_url":"javascript:h()","items":[
            {"id":"1","url":"javascript:u()","external_url":"https://ext.example/1","attachments":[{"url":"data:,a"}]},
            {"id":"2","url":"file:///etc/passwd"}]}
            """
        let jsonFeed = try FeedParser().parse(Array(json.utf8), baseURL: "https://h.example/", charset: nil)
        #expect(jsonFeed.link == nil)
        #expect(jsonFeed.entries.map(\.link) == ["https://ext.example/1", nil])
        #expect(jsonFeed.entries[0].enclosure == nil)
    }
}
