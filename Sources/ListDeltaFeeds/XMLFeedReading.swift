/// A parser of an XML feed format: it reads XML already prepared (its encoding found, its prolog checked), as
/// ``FeedParser`` hands it once for detection and parsing; parsing bytes is preparing them, then reading.
protocol XMLFeedReading: FeedParsing {
    /// Reads XML already prepared.
    /// - Throws: `.notAFeed` when the root is not one of this format's; see `FeedParsing`.
    func read(_ input: XMLInput, baseURL: String?) throws(FeedParseError) -> Feed
}

extension XMLFeedReading {
    /// Prepares `bytes` (encoding, prolog) and reads them.
    /// - Throws: see `FeedParsing` and ``read(_:baseURL:)``.
    /// - Complexity: O(*n*) in the bytes.
    func parse(_ bytes: [UInt8], baseURL: String?, charset: String?) throws(FeedParseError) -> Feed {
        try read(XMLFeedDocument.prepare(bytes, charset: charset), baseURL: baseURL)
    }
}
