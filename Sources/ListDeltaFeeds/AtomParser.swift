/// Reads Atom 1.0 (`<feed xmlns="http://www.w3.org/2005/Atom">`): `xml:base`, text constructs of type `text`,
/// `html` and `xhtml`, links by relation, authors inherited from the feed.
public struct AtomParser: FeedParsing {
    /// The bounds applied.
    public var limits: FeedLimits

    /// A parser applying `limits`.
    public init(limits: FeedLimits = .init()) {
        self.limits = limits
    }

    /// Parses Atom bytes.
    /// - Throws: `.notAFeed` when the root is not an Atom `feed`; see `FeedParsing`.
    /// - Complexity: O(*n*) in the bytes.
    public func parse(_ bytes: [UInt8], baseURL: String?, charset: String?) throws(FeedParseError) -> Feed {
        try read(XMLFeedDocument.prepare(bytes, charset: charset), baseURL: baseURL)
    }

    /// Reads XML already prepared (as `FeedParser` does, once for detection and parsing).
    func read(_ input: XMLInput, baseURL: String?) throws(FeedParseError) -> Feed {
        let root = try XMLFeedDocument.load(input, baseURL: baseURL, limits: limits)
        guard root.name == "feed", root.namespace == FeedNamespace.atom else {
            if root.name == "feed" {
                throw FeedParseError(.notAFeed, "The <feed> element is not in the Atom namespace (\(FeedNamespace.atom)).")
            }
            throw FeedParseError(.notAFeed, "The root element <\(root.name)> is not an Atom <feed>.")
        }
        var feed = Feed(format: .atom)
        feed.title = root.child("title", in: FeedNamespace.atom).flatMap { text($0) }
        feed.link = alternateLink(of: root)
        let feedAuthors = authors(of: root)
        let entries = root.children("entry", in: FeedNamespace.atom)
        let kept = min(entries.count, limits.maximumEntries)
        feed.droppedEntries = entries.count - kept
        feed.entries.reserveCapacity(kept)
        for node in entries.prefix(kept) {
            var entry = entry(node)
            if entry.authors.isEmpty { entry.authors = feedAuthors }
            feed.entries.append(entry)
        }
        return feed
    }

    private func entry(_ node: XMLNode) -> FeedEntry {
        var entry = FeedEntry()
        let atom = FeedNamespace.atom
        entry.id = node.child("id", in: atom)?.trimmedText
        entry.title = node.child("title", in: atom).flatMap { text($0) }
        entry.link = alternateLink(of: node)
        entry.summary = node.child("summary", in: atom).flatMap { FeedText.bounded(text($0), limits.maximumTextBytes) }
        entry.content = node.child("content", in: atom).flatMap { FeedText.bounded(text($0), limits.maximumTextBytes) }
        entry.published = node.child("published", in: atom)?.trimmedText.flatMap(FeedDate.parse)
        entry.updated = node.child("updated", in: atom)?.trimmedText.flatMap(FeedDate.parse)
        entry.authors = authors(of: node)
        for category in node.children("category", in: atom) {
            if let term = category.attributes["term"].flatMap(FeedText.trimmed) { entry.categories.append(term) }
        }
        for link in node.children("link", in: atom) where link.attributes["rel"].flatMap(FeedText.trimmed) == "enclosure" {
            if let url = link.attributes["href"].flatMap({ FeedText.resolve($0, against: link.base) }) {
                entry.enclosure = FeedEnclosure(
                    url: url, type: link.attributes["type"].flatMap(FeedText.trimmed),
                    length: FeedText.integer(link.attributes["length"]))
                break
            }
        }
        if entry.enclosure == nil { entry.enclosure = MediaRSS.enclosure(in: node) }
        return entry
    }

    /// A text construct's value: for `xhtml` the markup inside its `div` (or itself), else its text.
    private func text(_ node: XMLNode) -> String? {
        let type = node.attributes["type"].flatMap(FeedText.trimmed)?.lowercased()
        if type == "xhtml" {
            let container = node.child("div", in: FeedNamespace.xhtml) ?? node
            return FeedText.trimmed(container.innerMarkup)
        }
        return node.trimmedText
    }

    /// The `href` of the first `link` whose `rel` is `alternate` (the default), resolved against its base.
    private func alternateLink(of node: XMLNode) -> String? {
        for link in node.children("link", in: FeedNamespace.atom) {
            let rel = link.attributes["rel"].flatMap(FeedText.trimmed) ?? "alternate"
            guard rel == "alternate", let href = link.attributes["href"] else { continue }
            if let resolved = FeedText.resolve(href, against: link.base) { return resolved }
        }
        return nil
    }

    /// The `author` elements' names, or their e-mail addresses when they have no name.
    private func authors(of node: XMLNode) -> [String] {
        node.children("author", in: FeedNamespace.atom).compactMap { author in
            author.child("name", in: FeedNamespace.atom)?.trimmedText ?? author.child("email", in: FeedNamespace.atom)?.trimmedText
        }
    }
}
