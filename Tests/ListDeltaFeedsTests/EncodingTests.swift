import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct EncodingTests {
    @Test func declaredISO88591() throws {
        let bytes = try Fixture.bytes("latin1.xml")
        #expect(bytes.contains(0xE9), "the fixture really is ISO-8859-1")
        let feed = try FeedParser().parse(bytes, baseURL: nil, charset: "utf-8")
        #expect(feed.title == "Café crème")
        #expect(feed.entries[0].title == "Résumé naïve über")
        #expect(feed.entries[0].summary == "© 2026 ½")
    }

    @Test func declaredWindows1252() throws {
        let bytes = try Fixture.bytes("cp1252.xml")
        #expect(bytes.contains(0x80), "the fixture really is windows-1252")
        let feed = try FeedParser().parse(bytes, baseURL: nil, charset: nil)
        #expect(feed.title == "Prices in €")
        #expect(feed.entries[0].title == "“Quoted” – café for 5€…")
    }

    @Test func undeclaredUsesTheHTTPCharset() throws {
        let bytes = try Fixture.bytes("cp1252-undeclared.xml")
        let feed = try FeedParser().parse(bytes, baseURL: nil, charset: "Windows-1252")
        #expect(feed.entries[0].title == "“Quoted” – café for 5€…")
        // Without a charset it is taken as UTF-8, which it is not.
        #expect(Fixture.error(bytes)?.kind == .malformed)
        // An unknown charset is said so.
        #expect(Fixture.error(bytes, charset: "x-klingon")?.kind == .unsupportedEncoding)
    }

    @Test func utf16AndByteOrderMarks() throws {
        let utf16 = try Fixture.parse("utf16.xml")
        #expect(utf16.title == "UTF-16 été")
        #expect(utf16.entries[0].title == "Été")
        #expect(try Fixture.parse("utf8-bom.xml").title == "BOM")
    }

    @Test func unknownDeclaredEncoding() {
        let text = #"<?xml version="1.0" encoding="x-unknown-9"?><rss version="2.0"><channel/></rss>"#
        let error = Fixture.error(Array(text.utf8))
        #expect(error?.kind == .unsupportedEncoding)
        #expect(error?.message.contains("x-unknown-9") == true)
    }
}
