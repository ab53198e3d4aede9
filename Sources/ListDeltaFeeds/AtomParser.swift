import Foundation

/// Reads Atom 1.0 (`<feed xmlns="http://www.w3.org/2005/Atom">`), Atom 0.3 (`<feed version="0.3"
/// xmlns="http://purl.org/atom/ns#">`) and a `feed` without a namespace into the same model: `xml:base`, text
/// constructs (see `AtomText`), links by relation, authors inherited from the feed. Each `entry` (or `item`, which
/// some generators write instead) of the feed is an entry.
struct AtomParser: XMLFeedReading {
    /// The bounds applied.
    var limits: FeedLimits

    /// A parser applying `limits`.
    init(limits: FeedLimits = .init()) {
        self.limits = limits
    }

    /// Reads XML already prepared (as `FeedParser` does, once for detection and parsing).
    func read(_ input: XMLInput, baseURL: String?) throws(FeedParseError) -> Feed {
        let root = try XMLFeedDocument.load(input, baseURL: baseURL, limits: limits)
        guard root.name == "feed" else {
            throw FeedParseError(.notAFeed, "The root element <\(root.name)> is not an Atom <feed>.")
        }
        guard FeedNamespace.isAtom(root.namespace) || root.namespace.isEmpty else {
            throw FeedParseError(
                .notAFeed,
                "The <feed> element is in the namespace \(root.namespace.prefix(120)), not Atom's (\(FeedNamespace.atom), or \(FeedNamespace.atom03) for Atom 0.3).")
        }
        let atom = AtomElements(namespace: root.namespace)
        var feed = Feed(format: .atom)
        feed.title = atom.child("title", of: root).flatMap { AtomText($0).plain }
        feed.subtitle = (atom.child("subtitle", of: root) ?? atom.child("tagline", of: root)).flatMap { AtomText($0).plain }
        feed.info = atom.child("info", of: root).flatMap { AtomText($0).plain }
        feed.link = atom.alternateLink(of: root)
        let feedAuthors = atom.authors(of: root)
        let entries = root.children.filter { ($0.name == "entry" || $0.name == "item") && atom.accepts($0.namespace) }
        let kept = min(entries.count, limits.maximumEntries)
        feed.droppedEntries = entries.count - kept
        feed.entries.reserveCapacity(kept)
        for node in entries.prefix(kept) {
            var entry = entry(node, atom)
            if entry.authors.isEmpty { entry.authors = feedAuthors }
            feed.entries.append(entry)
        }
        return feed
    }

    /// One entry. Its link is its alternate (see `AtomElements.alternateLink`), else its `id` when that resolves
    /// (against the id's base) to an `http(s)` URL, as readers do; the id itself is kept as written.
    private func entry(_ node: XMLNode, _ atom: AtomElements) -> FeedEntry {
        var entry = FeedEntry()
        let id = atom.child("id", of: node)
        entry.id = id?.trimmedText
        entry.title = atom.child("title", of: node).flatMap { AtomText($0).plain } ?? ExtensionTitle.title(of: node, plain: { $0 })
        entry.link = atom.alternateLink(of: node) ?? id.flatMap { id in id.trimmedText.flatMap { WebLink.resolve($0, against: id.base) } }
        entry.summary = atom.child("summary", of: node).flatMap { FeedText.bounded(AtomText($0).value, limits.maximumTextBytes) }
        entry.content = atom.child("content", of: node).flatMap { FeedText.bounded(AtomText($0).value, limits.maximumTextBytes) }
        // Atom 0.3: `issued` (or `created`) is the publication, `modified` the update.
        entry.published = atom.date(["published", "issued", "created"], of: node)
        entry.updated = atom.date(["updated", "modified"], of: node)
        entry.authors = atom.authors(of: node)
        for category in atom.children("category", of: node) {
            if let term = category.attributes["term"].flatMap(FeedText.trimmed) { entry.categories.append(term) }
        }
        for link in atom.children("link", of: node) where AtomElements.relation(of: link) == "enclosure" {
            if let url = link.attributes["href"].flatMap({ WebLink.resolve($0, against: link.base) }) {
                entry.enclosure = FeedEnclosure(
                    url: url, type: link.attributes["type"].flatMap(FeedText.trimmed),
                    length: FeedText.integer(link.attributes["length"]))
                break
            }
        }
        if entry.enclosure == nil { entry.enclosure = MediaRSS.enclosure(in: node) }
        return entry
    }
}

/// Atom's elements in the namespace of the document's `feed` (1.0's, 0.3's or none), each version's elements
/// read in either.
struct AtomElements {
    let namespace: String

    func accepts(_ other: String) -> Bool { other == namespace || FeedNamespace.isAtom(other) }

    func child(_ name: String, of node: XMLNode) -> XMLNode? {
        node.children.first { $0.name == name && accepts($0.namespace) }
    }

    func children(_ name: String, of node: XMLNode) -> [XMLNode] {
        node.children.filter { $0.name == name && accepts($0.namespace) }
    }

    /// The first of `names` present whose text is a date.
    func date(_ names: [String], of node: XMLNode) -> Date? {
        for name in names {
            if let date = child(name, of: node)?.trimmedText.flatMap(FeedDate.parse) { return date }
        }
        return nil
    }

    /// The page a reader opens: the first `link` with `rel="alternate"` (the default) and an HTML type (none,
    /// `text/html`, `application/xhtml+xml`), else the first alternate of another type; its `href` resolved against
    /// its base, and only an `http(s)` URL (see `WebLink`). Other relations (`self`, `related`, `enclosure` …) are
    /// never the entry's page.
    func alternateLink(of node: XMLNode) -> String? {
        var otherAlternate: String?
        for link in children("link", of: node) {
            guard let href = link.attributes["href"], let resolved = WebLink.resolve(href, against: link.base) else { continue }
            let rel = Self.relation(of: link)
            let type = link.attributes["type"].flatMap(FeedText.trimmed)?.lowercased()
            if rel == "alternate" {
                if type == nil || type == "text/html" || type == "application/xhtml+xml" { return resolved }
                if otherAlternate == nil { otherAlternate = resolved }
            }
        }
        return otherAlternate
    }

    /// A `link`'s relation: its `rel`, trimmed and lower-cased, `alternate` when it has none.
    static func relation(of link: XMLNode) -> String {
        link.attributes["rel"].flatMap(FeedText.trimmed)?.lowercased() ?? "alternate"
    }

    /// The `author` elements' names, or their e-mail addresses when they have no name.
    func authors(of node: XMLNode) -> [String] {
        children("author", of: node).compactMap { author in
            child("name", of: author)?.trimmedText ?? child("email", of: author)?.trimmedText
        }
    }
}
