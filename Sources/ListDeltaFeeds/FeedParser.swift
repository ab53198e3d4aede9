/// Reads any supported feed: detects the format from the content (not from a file name or media type) and hands
/// the bytes to the parser for that format.
///
/// After an optional byte order mark and white space, `{` means JSON Feed; otherwise the document's root element
/// decides, its name compared without case: `rss` (RSS 0.9x and 2.0), `rdf:RDF` (RSS 1.0), `feed` (Atom 1.0 and
/// 0.3) or `channel` (CDF).
public struct FeedParser: FeedParsing {
    /// The bounds every format's parser applies.
    public var limits: FeedLimits

    /// A parser applying `limits` to every format.
    public init(limits: FeedLimits = .init()) {
        self.limits = limits
    }

    /// Detects the format and parses.
    /// - Complexity: O(*n*) in the bytes, plus the format parser's cost (linear as well).
    public func parse(_ bytes: [UInt8], baseURL: String?, charset: String?) throws(FeedParseError) -> Feed {
        guard let first = XMLInput.firstSignificantByte(bytes) else {
            throw FeedParseError(.notAFeed, "The response is empty: a feed was expected.")
        }
        if first == UInt8(ascii: "{") { return try JSONFeedParser(limits: limits).parse(bytes, baseURL: baseURL, charset: charset) }
        // Prepared once (encoding, entity check, root name), then read by the format's parser.
        let input = try XMLFeedDocument.prepare(bytes, charset: charset)
        switch try Self.format(ofRoot: input.rootName) {
        case .rss, .rdf, .cdf: return try RSSParser(limits: limits).read(input, baseURL: baseURL)
        case .atom: return try AtomParser(limits: limits).read(input, baseURL: baseURL)
        case .jsonFeed: return try JSONFeedParser(limits: limits).parse(bytes, baseURL: baseURL, charset: charset)
        }
    }

    /// The format the content looks like, from its first significant byte and, for XML, its root element's name.
    /// The namespace of the root element is checked by the format's parser.
    /// - Throws: `.notAFeed` for anything else (empty bytes, HTML, binary), and whatever preparing the XML throws
    ///   (`.forbiddenEntity`, `.unsupportedEncoding`).
    public static func detect(_ bytes: [UInt8], charset: String? = nil) throws(FeedParseError) -> FeedFormat {
        guard let first = XMLInput.firstSignificantByte(bytes) else {
            throw FeedParseError(.notAFeed, "The response is empty: a feed was expected.")
        }
        if first == UInt8(ascii: "{") { return .jsonFeed }
        return try format(ofRoot: XMLFeedDocument.prepare(bytes, charset: charset).rootName)
    }

    /// The XML format a root element's qualified name announces (its namespace is checked by the parser).
    private static func format(ofRoot root: String?) throws(FeedParseError) -> FeedFormat {
        guard let root else {
            throw FeedParseError(.notAFeed, "The document is not XML (it does not start with an element): not a feed.")
        }
        let local = (root.split(separator: ":").last.map(String.init) ?? root).lowercased()
        switch local {
        case "rss": return .rss
        case "rdf": return .rdf
        case "feed": return .atom
        case "channel": return .cdf
        case "html":
            throw FeedParseError(.notAFeed, "The document is an HTML page, not a feed (look for its <link rel=\"alternate\"> feed URL).")
        default:
            throw FeedParseError(.notAFeed, "The root element is <\(root.prefix(80))>, not <rss>, <rdf:RDF>, an Atom <feed> or a CDF <CHANNEL>.")
        }
    }
}
