import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct EntityTests {
    private func rss(_ subset: String, title: String) -> [UInt8] {
        Array("<?xml version=\"1.0\"?>\n<!DOCTYPE rss [\n\(subset)\n]>\n<rss version=\"2.0\"><channel><title>\(title)</title></channel></rss>".utf8)
    }

    @Test func safeInternalEntitiesAreExpanded() throws {
        let feed = try Fixture.parse("entities.xml")
        #expect(feed.title == "Example and Sons news \u{A9} 2026")
        #expect(feed.link == "https://entities.example.com/")
        let entry = try #require(feed.entries.first)
        #expect(entry.title == "A story at Example and Sons")
        #expect(entry.id == "https://entities.example.com/1")
        #expect(entry.summary == "&company; stays as written in CDATA", "CDATA is not expanded")
        #expect(entry.enclosure?.url == "https://entities.example.com/a.mp3?x=1&y=2", "expanded in attributes too")
    }

    @Test func quotesAndCharacterReferencesInAnEntity() throws {
        let bytes = Array(#"<!DOCTYPE rss [<!ENTITY q 'He said "hi" &#38; left'>]><rss><channel><title a='&q;'>&q;</title><link>https://x.example/?t=&q;</link></channel></rss>"#.utf8)
        let feed = try FeedParser().parse(bytes, baseURL: nil, charset: nil)
        #expect(feed.title == #"He said "hi" & left"#)
    }

    @Test func lineNumbersSurviveTheExpansion() throws {
        let bytes = rss("<!ENTITY a \"x\">\n<!ENTITY b \"y\">", title: "&a;</channel>")
        let error = try #require(Fixture.error(bytes))
        #expect(error.kind == .malformed)
        // The DOCTYPE (lines 2 to 5) is blanked, not removed: the error is still on the <rss> line.
        #expect(error.message.contains("line 6"), "\(error.message)")
    }

    @Test func expansionUpTo64KiBIsAcceptedAndNoMore() throws {
        let value = String(repeating: "x", count: 1_024)
        let within = rss("<!ENTITY k \"\(value)\">", title: String(repeating: "&k;", count: 64))
        #expect(try FeedParser().parse(within, baseURL: nil, charset: nil).title?.utf8.count == 64 * 1_024)
        let beyond = rss("<!ENTITY k \"\(value)\">", title: String(repeating: "&k;", count: 65))
        let error = try #require(Fixture.error(beyond))
        #expect(error.kind == .forbiddenEntity)
        #expect(error.message.contains("64 KiB"))
    }

    @Test(arguments: [
        ("<!ENTITY a \"x\"><!ENTITY b \"&a;&a;\">", "another entity"),
        ("<!ENTITY % p \"x\">", "parameter entity"),
        ("<!ENTITY a \"%p;\">", "parameter entity"),
        ("<!ENTITY a SYSTEM \"file:///etc/passwd\">", "external entity"),
        ("<!ENTITY a PUBLIC \"-//X//EN\" \"http://x.example/a.ent\">", "external entity"),
        ("<!ENTITY a \"<b>x</b>\">", "markup"),
        ("<!ENTITY a \"x\" NDATA gif>", "not plain text"),
    ])
    func unsafeDeclarationsAreRefused(subset: String, reason: String) throws {
        let error = try #require(Fixture.error(rss(subset, title: "&a;")))
        #expect(error.kind == .forbiddenEntity, "\(subset)")
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.message.contains("<!ENTITY>"))
    }

    @Test func tooManyDeclarationsAreRefused() throws {
        let subset = (0...XMLInternalEntities.maximumDeclarations).map { "<!ENTITY e\($0) \"v\">" }.joined()
        #expect(Fixture.error(rss(subset, title: "&e0;"))?.kind == .forbiddenEntity)
        let allowed = (0..<XMLInternalEntities.maximumDeclarations).map { "<!ENTITY e\($0) \"v\">" }.joined()
        #expect(try FeedParser().parse(rss(allowed, title: "&e0;&e255;"), baseURL: nil, charset: nil).title == "vv")
    }

    @Test func predefinedEntitiesKeepTheirMeaning() throws {
        let feed = try FeedParser().parse(rss("<!ENTITY amp \"&#38;#38;\">", title: "a &amp; b"), baseURL: nil, charset: nil)
        #expect(feed.title == "a & b")
    }

    @Test func anUndeclaredEntityNextToDeclaredOnesIsStillMalformed() throws {
        let error = try #require(Fixture.error(rss("<!ENTITY a \"x\">", title: "&a;&nbsp;")))
        #expect(error.kind == .malformed)
        #expect(error.message.contains("undeclared entity"))
    }
}
