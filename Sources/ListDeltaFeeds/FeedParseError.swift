/// Why bytes could not be read as a feed: a kind to branch on and a message a person can act on.
public struct FeedParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The broad reason.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The bytes are not RSS, RDF, Atom or JSON Feed (an HTML page, JSON of another kind, nothing at all).
        case notAFeed
        /// The bytes look like a feed but are not well-formed XML or JSON (the message says where).
        case malformed
        /// The XML declares entities in its DOCTYPE, which is refused (entity expansion and external entity attacks).
        case forbiddenEntity
        /// The declared or announced character encoding is not one that can be read.
        case unsupportedEncoding
    }

    /// The broad reason.
    public var kind: Kind
    /// What was wrong, and where when known (for XML, the line and column).
    public var message: String

    /// An error of `kind` with a message for a person.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
