public import Foundation

/// A feed as read from RSS, Atom or JSON Feed: its own information and its entries, in the feed's order.
///
/// A value: two fetches of the same feed compare equal when nothing a list shows changed.
public struct Feed: Sendable, Equatable {
    /// Which format the bytes were.
    public var format: FeedFormat
    /// The feed's title, if it has one.
    public var title: String?
    /// The feed's own web page (absolute when it could be resolved).
    public var link: String?
    /// What the feed is about: Atom `subtitle` (0.3: `tagline`), RSS `description`, JSON Feed `description`.
    public var subtitle: String?
    /// Atom 0.3's `info`: what the feed's format is, for a person who opens it.
    public var info: String?
    /// The entries, in the feed's order, as read (ids not yet made unique: see `FeedListMapping`).
    public var entries: [FeedEntry]
    /// How many entries the feed had beyond `FeedLimits.maximumEntries`, which were not kept.
    public var droppedEntries: Int

    /// A feed from its parts.
    public init(
        format: FeedFormat, title: String? = nil, link: String? = nil, entries: [FeedEntry] = [], droppedEntries: Int = 0
    ) {
        self.format = format
        self.title = title
        self.link = link
        self.entries = entries
        self.droppedEntries = droppedEntries
    }
}

/// The formats a feed's content is detected as.
public enum FeedFormat: String, Sendable, Equatable, CaseIterable {
    /// RSS 0.9x and 2.0 (`<rss>`, with any version or none).
    case rss
    /// RSS 1.0 (`<rdf:RDF>`).
    case rdf
    /// Atom 1.0 (`<feed xmlns="http://www.w3.org/2005/Atom">`) and 0.3 (`<feed version="0.3">`).
    case atom
    /// JSON Feed 1.0 and 1.1.
    case jsonFeed = "json"
    /// Microsoft's Channel Definition Format (`<CHANNEL>`), which some old sites still serve.
    case cdf
}

/// One entry of a feed, its members as the feed gave them (links resolved against the feed's base).
public struct FeedEntry: Sendable, Equatable {
    /// guid / `atom:id` / JSON Feed `id` / RDF `rdf:about`, when present and not empty.
    public var id: String?
    /// The entry's title as a reader shows it: text, with HTML titles (Atom `html`/`xhtml`, Atom 0.3 `escaped`, RSS
    /// titles that look like HTML) reduced to their text.
    public var title: String?
    /// The entry's web page, absolute when it could be resolved (`xml:base`, else the feed's URL).
    public var link: String?
    /// The short text: RSS `description`, Atom `summary`, JSON Feed `summary`.
    public var summary: String?
    /// The full text: `content:encoded`, Atom `content`, JSON Feed `content_html` or `content_text`.
    public var content: String?
    /// When the entry was first published (`pubDate`, `dc:date`, `published`, `date_published`).
    public var published: Date?
    /// When the entry last changed (`updated`, `dc:modified`, `date_modified`).
    public var updated: Date?
    /// Author names (or addresses when no name is given), in order.
    public var authors: [String]
    /// Category terms, in order.
    public var categories: [String]
    /// The attached media file, if any.
    public var enclosure: FeedEnclosure?

    /// An entry from its members; all optional.
    public init(
        id: String? = nil, title: String? = nil, link: String? = nil, summary: String? = nil, content: String? = nil,
        published: Date? = nil, updated: Date? = nil, authors: [String] = [], categories: [String] = [],
        enclosure: FeedEnclosure? = nil
    ) {
        self.id = id
        self.title = title
        self.link = link
        self.summary = summary
        self.content = content
        self.published = published
        self.updated = updated
        self.authors = authors
        self.categories = categories
        self.enclosure = enclosure
    }
}

/// A media file attached to an entry (RSS `enclosure`, Atom `link rel="enclosure"`, JSON Feed `attachments[0]`,
/// `media:content`).
public struct FeedEnclosure: Sendable, Equatable {
    /// The file's URL, absolute when it could be resolved.
    public var url: String
    /// Its media type, as the feed gives it.
    public var type: String?
    /// Its size in bytes, as the feed gives it.
    public var length: Int?

    /// An enclosure at `url`.
    public init(url: String, type: String? = nil, length: Int? = nil) {
        self.url = url
        self.type = type
        self.length = length
    }
}
