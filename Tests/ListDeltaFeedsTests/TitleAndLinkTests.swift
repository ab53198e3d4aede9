import Foundation
import Testing
@testable import ListDeltaFeeds

@Suite struct TitleAndLinkTests {
    @Test func htmlAsText() {
        #expect(HTMLText.text("Atom <em>powered</em> robots") == "Atom powered robots")
        #expect(HTMLText.text("Hello <b>W</b>orld") == "Hello World", "tags join what they separate")
        #expect(HTMLText.text("a&nbsp;b &amp; c &#233; &#xE9; &mdash; &unknown; &") == "a b & c \u{E9} \u{E9} \u{2014} &unknown; &", "a no-break space is white space too")
        #expect(HTMLText.text("  two\n\n lines <!-- c --> ") == "two lines")
        #expect(HTMLText.text("<p></p>") == nil)
        #expect(HTMLText.text("1 < 2 and 3 > 2") == "1 < 2 and 3 > 2", "a < not followed by a letter is text")
    }

    @Test func scriptStyleCommentsAndCDATAAreNotText() {
        #expect(HTMLText.text("safe<script type=\"text/javascript\">location.href='http:/'+'/example.com/';</script> description")
            == "safe description")
        #expect(HTMLText.text("a<SCRIPT>if (a < b && c > d) go()</Script >b") == "ab", "any case; a < inside the script is code")
        #expect(HTMLText.text("x <style media=\"screen\">p > a { color: red }</style>y") == "x y")
        #expect(HTMLText.text("a <script src=\"x.js\"/>hidden</script> b") == "a b", "a self-closing script still runs to its end tag")
        #expect(HTMLText.text("a <scripts>b</scripts> c") == "a b c", "another element whose name starts alike")
        #expect(HTMLText.text("open <script>never closed") == "open", "an unclosed script hides the rest, as in a browser")
        #expect(HTMLText.text("a <!-- x > y --> b <!--> c <!---> d") == "a b c d", "comments to -->, empty ones too")
        #expect(HTMLText.text("a <![CDATA[ x > y ]]> b") == "a b")
        #expect(HTMLText.text("a <!-- unclosed > comment") == "a")
        #expect(HTMLText.text("</script> stray end tag") == "stray end tag")
    }

    @Test func hiddenPartsInEveryTitleForm() throws {
        let feed = try Fixture.parse("html-titles.xml")
        #expect(feed.entries.map(\.title) == [
            "Hello from Oslo", "Nice site", "Thanks for the recipe", "Greetings from Lyon", "See you next year",
        ], "escaped html, html in CDATA, a comment, a CDATA section in the markup, inline XHTML")
        let rss = #"<rss><channel><item><title>News &lt;script&gt;x()&lt;/script&gt;today</title></item></channel></rss>"#
        #expect(try FeedParser().parse(Array(rss.utf8), baseURL: nil, charset: nil).entries[0].title == "News today")
    }

    @Test func looksLikeHTML() {
        #expect(HTMLText.looksLikeHTML("<b>bold</b>"))
        #expect(HTMLText.looksLikeHTML("AT&amp;T"))
        #expect(HTMLText.looksLikeHTML("&#8212;"))
        #expect(!HTMLText.looksLikeHTML("Q&A <3"))
        #expect(!HTMLText.looksLikeHTML("<open> only"), "no end tag")
        #expect(!HTMLText.looksLikeHTML("&bogus; </b>"), "an unknown entity name means not HTML")
        #expect(!HTMLText.looksLikeHTML("plain"))
    }

    @Test func relativeLinksAgainstXMLBaseAndTheAlternatePreferred() throws {
        let feed = try Fixture.parse("xml-base.xml", baseURL: "https://feeds.example.com/dir/feed.xml")
        #expect(feed.title == "Relative links & bases")
        #expect(feed.link == "https://base.example.org/root/home/", "the alternate, not self")
        #expect(feed.entries[0].title == "An XHTML title")
        #expect(feed.entries[0].link == "https://base.example.org/root/section/a.html", "the HTML alternate over the Atom one")
        #expect(feed.entries[1].link == "https://base.example.org/up.html?x=1&y=2")
    }

    @Test func relativeLinksAgainstTheDocumentURL() throws {
        let feed = try Fixture.parse("relative-nobase.xml", baseURL: "https://feeds.example.com/dir/feed.xml")
        #expect(feed.link == "https://feeds.example.com/dir/")
        #expect(feed.entries.map(\.link) == ["https://feeds.example.com/dir/posts/1.html", "https://feeds.example.com/top/2.html"])
        #expect(feed.entries.map(\.id) == ["p1", "p2"], "ids are not links: never resolved")
        let unresolved = try Fixture.parse("relative-nobase.xml")
        #expect(unresolved.entries[0].link == nil, "without a document URL a relative link is no http(s) URL: no link")
    }

    @Test func nonHTMLAlternateWhenThereIsNoOther() throws {
        let text = """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><id>1</id>
            <link rel="related" href="https://r.example/"/><link rel="alternate" type="application/pdf" href="https://p.example/c.pdf"/>
            </entry><entry><id>2</id><link rel="self" href="https://s.example/"/></entry></feed>
            """
        let feed = try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil)
        #expect(feed.entries.map(\.link) == ["https://p.example/c.pdf", nil])
    }

    @Test func attributeAmpersandsAndReferencesDecoded() throws {
        let text = #"<rss version="2.0"><channel><item><title>a &#38; b &lt;i&gt;</title><enclosure url="https://e.example/a?x=1&amp;y=&#38;2"/></item></channel></rss>"#
        let entry = try #require(try FeedParser().parse(Array(text.utf8), baseURL: nil, charset: nil).entries.first)
        #expect(entry.title == "a & b <i>")
        #expect(entry.enclosure?.url == "https://e.example/a?x=1&y=&2")
    }
}
