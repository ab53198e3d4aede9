/// The namespace URIs feeds use.
enum FeedNamespace {
    static let atom = "http://www.w3.org/2005/Atom"
    /// Atom 0.3's (obsolete, still served).
    static let atom03 = "http://purl.org/atom/ns#"
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let rss10 = "http://purl.org/rss/1.0/"
    static let rss090 = "http://my.netscape.com/rdf/simple/0.9/"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let dublinCoreTerms = "http://purl.org/dc/terms/"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    static let media = "http://search.yahoo.com/mrss/"
    static let xhtml = "http://www.w3.org/1999/xhtml"
    /// The namespaces RSS 0.9x/2.0 elements are found in besides none: UserLand's and Harvard's RSS 2.0 URIs and
    /// the RSS 0.91 module, which feedparser reads as plain RSS.
    static let rssAliases: Set<String> = [
        "http://backend.userland.com/rss", "http://backend.userland.com/rss2", "http://blogs.law.harvard.edu/tech/rss",
        "http://purl.org/rss/1.0/modules/rss091#",
    ]

    /// Whether RSS's own elements live in `namespace`: none (0.9x, 2.0), RSS 1.0's and 0.90's vocabularies, or one
    /// of `rssAliases`.
    @inline(__always)
    static func isRSS(_ namespace: String) -> Bool {
        namespace.isEmpty || namespace == rss10 || namespace == rss090 || rssAliases.contains(namespace)
    }

    /// Whether Atom's elements live in `namespace`: Atom 1.0's or 0.3's.
    @inline(__always)
    static func isAtom(_ namespace: String) -> Bool {
        namespace == atom || namespace == atom03
    }
}

/// Loads XML feed bytes into a tree, with every safety check applied first.
enum XMLFeedDocument {
    /// Prepares the encoding and refuses entity declarations (see `XMLInput.prepare`).
    /// - Throws: `.notAFeed` for empty bytes or bytes that do not start with `<`, else as `XMLInput.prepare`.
    /// - Complexity: O(*n*) in the bytes.
    static func prepare(_ bytes: [UInt8], charset: String?) throws(FeedParseError) -> XMLInput {
        guard let first = XMLInput.firstSignificantByte(bytes) else {
            throw FeedParseError(.notAFeed, "The response is empty: a feed was expected.")
        }
        guard first == UInt8(ascii: "<") else {
            throw FeedParseError(.notAFeed, "The response does not start with '<' or '{': it is neither XML nor JSON (binary data or plain text?).")
        }
        return try XMLInput.prepare(bytes, charset: charset)
    }

    /// Parses prepared input into a tree.
    /// - Throws: `.notAFeed` when there is no root element, else as `LibXML2Reader.parse`.
    /// - Complexity: O(*n*) in the bytes.
    static func load(_ input: XMLInput, baseURL: String?, limits: FeedLimits) throws(FeedParseError) -> XMLNode {
        guard input.rootName != nil else {
            throw FeedParseError(.notAFeed, "The document is not XML (it does not start with an element): not a feed.")
        }
        return try LibXML2Reader.parse(input, baseURL: baseURL, maximumDepth: limits.maximumDepth)
    }
}
