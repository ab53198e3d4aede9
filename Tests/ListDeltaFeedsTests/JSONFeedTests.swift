import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct JSONFeedTests {
    @Test func jsonFeed11() throws {
        let feed = try Fixture.parse("feed11.json", baseURL: "https://json.example.com/feed.json")
        #expect(feed.format == .jsonFeed)
        #expect(feed.title == "JSON Blog")
        #expect(feed.link == "https://json.example.com/")
        let first = feed.entries[0]
        #expect(first.id == "2")
        #expect(first.link == "https://json.example.com/2")
        #expect(first.content == "<p>Hello, <b>world</b>!</p>")
        #expect(first.summary == "Hello")
        #expect(first.published == utc(2026, 11, 25, 8))
        #expect(first.updated == utc(2026, 11, 25, 8, 30))
        #expect(first.authors == ["Ann", "https://json.example.com/bob"])
        #expect(first.categories == ["swift", "feeds"])
        #expect(first.enclosure == FeedEnclosure(url: "https://json.example.com/files/a.mp3", type: "audio/mpeg", length: 4096))
        let second = feed.entries[1]
        #expect(second.id == "1", "a numeric id reads as its literal")
        #expect(second.link == "https://other.example.com/story", "external_url when there is no url")
        #expect(second.content == "Plain text only")
        #expect(second.published == utc(2026, 11, 24))
        #expect(second.authors == ["Feed Author"])
    }

    @Test func jsonFeed10() throws {
        let feed = try Fixture.parse("feed10.json")
        #expect(feed.title == "Old JSON")
        #expect(feed.entries.map(\.id) == ["a", "b"])
        #expect(feed.entries[0].authors == ["Old Author"])
        #expect(feed.entries[0].published == utc(2020, 1, 2, 11, 4, 5))
        #expect(feed.entries[1].authors == ["Item Author"])
        #expect(feed.entries[1].content == "<p>b</p>")
    }

    @Test func jsonThatIsNotAFeed() {
        #expect(Fixture.error(Array(#"{"items":[]}"#.utf8))?.kind == .notAFeed)
        #expect(Fixture.error(Array(#"{"version":"1.1","items":[]}"#.utf8))?.kind == .notAFeed)
        let broken = Fixture.error(Array(#"{"version":"https://jsonfeed.org/version/1.1","items":[}"#.utf8))
        #expect(broken?.kind == .malformed)
        #expect(broken?.message.contains("byte") == true)
        let deep = "{\"a\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(Fixture.error(Array(deep.utf8))?.kind == .malformed)
    }
}
