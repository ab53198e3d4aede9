import Testing
@testable import ListDeltaFeeds

@Suite struct URIResolutionTests {
    /// RFC 3986 section 5.4's examples, normal and abnormal, against its base.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
    ])
    func rfc3986Examples(reference: String, expected: String) {
        #expect(FeedText.resolve(reference, against: "http://a/b/c/d;p?q") == expected)
    }

    @Test func textOutsideURICharactersFallsBackToFoundation() {
        #expect(URIResolution.resolve("a b", against: "http://x.example/") == nil)
        #expect(URIResolution.resolve("caf\u{E9}", against: "http://x.example/") == nil)
        #expect(URIResolution.resolve("a", against: "relative/base") == nil, "a base without a scheme")
        #expect(FeedText.resolve("  posts/1  ", against: "https://x.example/feed/") == "https://x.example/feed/posts/1")
        #expect(FeedText.resolve("x", against: "file:///srv/feeds/a.xml") == "file:///srv/feeds/x")
        #expect(FeedText.resolve("x", against: "https://host.example") == "https://host.example/x", "an empty base path")
    }
}
