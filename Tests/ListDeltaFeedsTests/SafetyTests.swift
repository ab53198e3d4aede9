import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct SafetyTests {
    @Test(arguments: ["billion-laughs.xml", "quadratic-blowup.xml", "external-entity.xml"])
    func entityDeclarationsAreRefused(name: String) throws {
        let bytes = try Fixture.bytes(name)
        // Refused before libxml2 reads the document, so nothing is ever expanded.
        let error = Fixture.error(bytes)
        #expect(error?.kind == .forbiddenEntity)
        #expect(error?.message.contains("ENTITY") == true)
        // Each format parser refuses on its own too.
        #expect(throws: FeedParseError.self) { try RSSParser().parse(bytes, baseURL: nil, charset: nil) }
        #expect(throws: FeedParseError.self) { try AtomParser().parse(bytes, baseURL: nil, charset: nil) }
    }

    @Test func entitiesInUTF16AreRefusedToo() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><!DOCTYPE rss [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><rss version=\"2.0\"><channel><title>&x;</title></channel></rss>"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(Fixture.error(bytes)?.kind == .forbiddenEntity)
    }

    @Test func aDoctypeWithoutEntitiesIsFine() throws {
        let text = #"<!DOCTYPE rss [<!ELEMENT rss ANY> <!-- a comment with ] and > -->]><rss version="2.0"><channel><title>ok</title></channel></rss>"#
        #expect(try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil).title == "ok")
        // "<!ENTITY" in content (not the DOCTYPE) is just text.
        let inContent = #"<rss version="2.0"><channel><title><![CDATA[<!ENTITY x "y">]]></title></channel></rss>"#
        #expect(try FeedParser().parse(Array(inContent.utf8), baseURL: nil, charset: nil).title == #"<!ENTITY x "y">"#)
    }

    @Test func externalDTDsAreNeverLoaded() throws {
        let dtd = FileManager.default.temporaryDirectory.appendingPathComponent("feeds-test-\(getpid()).dtd")
        try Data(#"<!ENTITY secret "LEAKED">"#.utf8).write(to: dtd)
        defer { try? FileManager.default.removeItem(at: dtd) }
        let text = "<!DOCTYPE rss SYSTEM \"\(dtd.absoluteString)\"><rss version=\"2.0\"><channel><title>&secret;</title></channel></rss>"
        let error = Fixture.error(Array(text.utf8))
        #expect(error?.kind == .malformed)
        #expect(error?.message.contains("undeclared entity") == true)
        let hidden = #"<!DOCTYPE rss [<!ELEMENT rss "<!ENTITY x 'y'>">]><rss version="2.0"><channel/></rss>"#
        #expect(Fixture.error(Array(hidden.utf8))?.kind == .malformed)
    }

    @Test func unclosedTagSaysWhere() throws {
        let error = try #require(Fixture.error(try Fixture.bytes("unclosed-tag.xml")))
        #expect(error.kind == .malformed)
        #expect(error.message.contains("line 5"), "\(error.message)")
    }

    @Test func truncatedFeed() throws {
        let error = try #require(Fixture.error(try Fixture.bytes("truncated.xml")))
        #expect(error.kind == .malformed)
        #expect(error.message.contains("line"))
    }

    @Test func htmlPageEmptyAndGarbageAreNotFeeds() throws {
        let html = try #require(Fixture.error(try Fixture.bytes("html-page.html")))
        #expect(html.kind == .notAFeed)
        #expect(html.message.contains("HTML"))
        let empty = try #require(Fixture.error(try Fixture.bytes("empty.xml")))
        #expect(empty.kind == .notAFeed)
        #expect(empty.message.contains("empty"))
        #expect(Fixture.error(Array("  \n\t ".utf8))?.kind == .notAFeed)
        let garbage = try #require(Fixture.error(try Fixture.bytes("garbage.bin")))
        #expect(garbage.kind == .notAFeed)
        #expect(Fixture.error(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8))?.kind == .notAFeed)
        #expect(Fixture.error(Array("[1,2]".utf8))?.kind == .notAFeed)
    }

    @Test func undeclaredHTMLEntityIsMalformedWithAReason() throws {
        let error = try #require(Fixture.error(Array("<rss version=\"2.0\"><channel><title>a&nbsp;b</title></channel></rss>".utf8)))
        #expect(error.kind == .malformed)
        #expect(error.message.contains("undeclared entity"))
    }

    @Test func invalidUTF8NeverReachesLibxml2() throws {
        // Found by fuzz-feed: FoundationXML (libxml2 in recovery mode) trapped on an element name of invalid UTF-8.
        let error = try #require(Fixture.error(try Fixture.bytes("invalid-utf8-name.xml")))
        #expect(error.kind == .malformed)
        #expect(error.message.contains("not valid UTF-8 (line 1, byte 156)"), "\(error.message)")
        let text: [UInt8] = Array("<rss version=\"2.0\"><channel>\n<title>a".utf8) + [0xC3, 0x28] + Array("</title></channel></rss>".utf8)
        #expect(Fixture.error(text)?.message.contains("line 2") == true)
        #expect(TextEncodings.firstInvalidUTF8(in: Array("aé☕🍰".utf8)) == nil)
        #expect(TextEncodings.firstInvalidUTF8(in: [0x61, 0xE0, 0x80, 0x80]) == 1, "overlong")
        #expect(TextEncodings.firstInvalidUTF8(in: [0xED, 0xA0, 0x80]) == 0, "surrogate")
        #expect(TextEncodings.firstInvalidUTF8(in: [0xF4, 0x90, 0x80, 0x80]) == 0, "above U+10FFFF")
        #expect(TextEncodings.firstInvalidUTF8(in: [0x61, 0xF0, 0x9F]) == 1, "truncated")
    }

    @Test func declarationsFoundationXMLCrashesOnAreRefusedOrPadded() throws {
        // Found by fuzz-feed: FoundationXML dereferences null for these.
        for subset in ["<!ATTLIST rss a CDATA #IMPLIED>", "<!NOTATION n SYSTEM \"x\">", "<?pi?>"] {
            let text = "<!DOCTYPE rss [\(subset)]><rss version=\"2.0\"><channel><title>t</title></channel></rss>"
            #expect(Fixture.error(Array(text.utf8))?.kind == .malformed, "\(subset)")
        }
        let text = "<?xml version=\"1.0\"?><?style?><rss version=\"2.0\"><channel><?a?><title>t<![CDATA[<?b?>]]></title><!-- <?c?> --></channel></rss><?d?>"
        #expect(try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil).title == "t<?b ?>")
        #expect(XMLProcessingInstructions.paddingEmpty(Array("<?a?><![CDATA[<?b?>]]><!--<?c?>--><?d x?><?<?e?><??>".utf8))
            == Array("<?a ?><![CDATA[<?b ?>]]><!--<?c ?>--><?d x?><?<?e ?><??>".utf8))
    }

    @Test func detection() throws {
        #expect(try FeedParser.detect(try Fixture.bytes("rss2.xml")) == .rss)
        #expect(try FeedParser.detect(try Fixture.bytes("rss10.rdf")) == .rdf)
        #expect(try FeedParser.detect(try Fixture.bytes("atom.xml")) == .atom)
        #expect(try FeedParser.detect(Array("\u{FEFF}\n {\"version\":1}".utf8)) == .jsonFeed)
    }
}
