/// Something that reads a feed's bytes into a `Feed`.
public protocol FeedParsing: Sendable {
    /// Reads `bytes` as a feed.
    /// - Parameters:
    ///   - bytes: the body as fetched.
    ///   - baseURL: the URL the feed was fetched from, against which relative links are resolved (after any
    ///     `xml:base`).
    ///   - charset: the `charset` parameter of the HTTP `Content-Type`, used only when the XML declares no encoding.
    /// - Throws: `FeedParseError` saying why the bytes are not a feed this parser reads.
    func parse(_ bytes: [UInt8], baseURL: String?, charset: String?) throws(FeedParseError) -> Feed
}
