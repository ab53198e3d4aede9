import Foundation
import Testing
@testable import ListDeltaFeeds

/// Issue 43: an entry without a link opens its id when the id is, or resolves to, an `http(s)` URL; the id itself
/// stays as written.
@Suite struct IDLinkTests {
    @Test func atomIDsAsLinks() throws {
        let feed = try Fixture.parse("atom-id-links.xml", baseURL: "https://feeds.example.net/notes.xml")
        #expect(feed.entries.map(\.link) == [
            "https://notes.example.net/2026/11/plane-iron",
            "https://notes.example.net/2026/11/glue-up",
            "https://notes.example.net/2026/11/inventory",
            nil,
            "https://notes.example.net/2026/11/winter-hours.html",
        ], "absolute, relative to the entry's xml:base, relative to the feed's, a tag: URI (no link), the alternate first")
        #expect(feed.entries.map(\.id) == [
            "https://notes.example.net/2026/11/plane-iron", "glue-up", "/2026/11/inventory",
            "tag:notes.example.net,2026:oil-finishes", "https://notes.example.net/posts/winter-hours",
        ], "ids are never resolved")
    }

    @Test func atomIDRelativeToTheDocument() throws {
        let text = #"<feed version="0.3" xmlns="http://purl.org/atom/ns#"><entry><id>/relative/link</id></entry></feed>"#
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: "http://127.0.0.1:8097/feeds/a.xml", charset: nil)
        #expect(feed.entries[0].link == "http://127.0.0.1:8097/relative/link")
        #expect(feed.entries[0].id == "/relative/link")
        let unresolved = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(unresolved.entries[0].link == nil, "without a base a relative id is no link")
    }

    @Test func rssPermalinkGuidsResolvedAgainstTheirBase() throws {
        let feed = try Fixture.parse("rss-guid-links.xml", baseURL: "https://feeds.example.org/late-signal.rss")
        #expect(feed.entries.map(\.link) == [
            "https://radio.example.org/shows/late-signal/episodes/12",
            "https://radio.example.org/shows/late-signal/episodes/11",
            nil,
            "https://radio.example.org/shows/late-signal/9",
        ], "a relative permalink guid, an absolute one, isPermaLink=\"false\" (no link), the link before the guid")
        #expect(feed.entries.map(\.id) == [
            "episodes/12", "https://radio.example.org/shows/late-signal/episodes/11", "late-signal-0010",
            "https://cdn.example.org/late-signal/9",
        ])
        #expect(feed.entries[0].enclosure?.url == "https://radio.example.org/shows/late-signal/audio/late-signal-12.mp3")
    }

    @Test func rssLinkWrittenAtomsWayWithoutItsNamespace() throws {
        let text = """
            <rss version="2.0"><channel><item><title>a</title><link href="https://podcast.example/1"/>
            <link rel="enclosure" href="https://podcast.example/1.mp3"/></item>
            <item><title>b</title><link rel="enclosure" href="https://podcast.example/2.mp3"/></item></channel></rss>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(feed.entries.map(\.link) == ["https://podcast.example/1", nil], "an href of the alternate relation only")
    }
}
