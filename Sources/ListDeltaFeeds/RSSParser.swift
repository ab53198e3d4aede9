/// Reads RSS 0.9x and 2.0 (`<rss><channel><item>`, any version or none), RSS 1.0 (`<rdf:RDF>`, items beside the
/// channel) and CDF (`<CHANNEL>`), with the Dublin Core, `content:encoded`, `atom:link` and Media RSS extensions.
struct RSSParser: XMLFeedReading {
    /// The bounds applied.
    var limits: FeedLimits

    /// A parser applying `limits`.
    init(limits: FeedLimits = .init()) {
        self.limits = limits
    }

    /// Reads XML already prepared (as `FeedParser` does, once for detection and parsing).
    ///
    /// `<rss>` with any `version` (or none) is read as RSS 2.0, its items inside `channel` or beside it; element
    /// names are compared without case and RSS's elements found in any of its namespaces (`FeedNamespace.isRSS`),
    /// as feedparser reads them. A `<channel>` root is CDF (see `CDFReader`).
    func read(_ input: XMLInput, baseURL: String?) throws(FeedParseError) -> Feed {
        let root = try XMLFeedDocument.load(input, baseURL: baseURL, limits: limits)
        let format: FeedFormat
        let channel: XMLNode?
        var items: [XMLNode]
        let isItem = { (node: XMLNode) in node.name == "item" && FeedNamespace.isRSS(node.namespace) }
        if root.name == "rss" && FeedNamespace.isRSS(root.namespace) {
            format = .rss
            channel = root.child("channel", where: FeedNamespace.isRSS)
            items = (channel?.children.filter(isItem) ?? []) + root.children.filter(isItem)
        } else if root.name == "rdf" && root.namespace == FeedNamespace.rdf {
            format = .rdf
            channel = root.child("channel", where: FeedNamespace.isRSS)
            items = root.children.filter(isItem)
            // Some RSS 1.0 feeds nest their items in the channel.
            items += channel?.children.filter(isItem) ?? []
        } else if root.name == "channel" && FeedNamespace.isRSS(root.namespace) {
            return CDFReader(limits: limits).read(root)
        } else {
            throw FeedParseError(.notAFeed, "The root element <\(root.name)> is not RSS (<rss> or <rdf:RDF>) or CDF (<CHANNEL>).")
        }
        var feed = Feed(format: format)
        if let channel {
            feed.title = channel.child("title", where: FeedNamespace.isRSS)?.trimmedText.flatMap(Self.shownTitle)
            feed.subtitle = channel.child("description", where: FeedNamespace.isRSS)?.trimmedText
            if let link = channel.child("link", where: FeedNamespace.isRSS)?.trimmedText {
                feed.link = WebLink.resolve(link, against: channel.base)
            }
        }
        let kept = min(items.count, limits.maximumEntries)
        feed.droppedEntries = items.count - kept
        feed.entries.reserveCapacity(kept)
        for item in items.prefix(kept) { feed.entries.append(entry(item)) }
        return feed
    }

    /// An RSS title as a reader shows it: RSS does not say whether a title is HTML, so one that looks like HTML (see
    /// `HTMLText.looksLikeHTML`) is reduced to its text, and any other is kept as written.
    static func shownTitle(_ text: String) -> String? {
        HTMLText.looksLikeHTML(text) ? HTMLText.text(text) : text
    }

    /// An RSS `link`'s URL: its text, or, for one written Atom's way without Atom's namespace (`<link
    /// href="…"/>`, no text), its `href` when its `rel` is `alternate` (the default).
    private static func linkText(_ link: XMLNode) -> String? {
        if let text = link.trimmedText { return text }
        guard AtomElements.relation(of: link) == "alternate" else { return nil }
        return link.attributes["href"]
    }

    /// One `item` as an entry. Its link is the first `http(s)` one of: `link`, an `atom:link` alternate, the
    /// `guid` when it is a permalink (resolved against its base, as readers do), RSS 1.0's `rdf:about`.
    private func entry(_ item: XMLNode) -> FeedEntry {
        var entry = FeedEntry()
        let rss = FeedNamespace.isRSS
        var permaLink: XMLNode?
        var atomLink: String?
        for child in item.children {
            switch (child.namespace, child.name) {
            case (let ns, "title") where rss(ns): if entry.title == nil { entry.title = child.trimmedText.flatMap(Self.shownTitle) }
            case (let ns, "link") where rss(ns):
                if entry.link == nil, let link = Self.linkText(child) { entry.link = WebLink.resolve(link, against: child.base) }
            case (let ns, "guid") where rss(ns):
                if entry.id == nil, let guid = child.trimmedText {
                    entry.id = guid
                    if child.attributes["ispermalink"]?.lowercased() != "false" { permaLink = child }
                }
            case (let ns, "description") where rss(ns):
                if entry.summary == nil { entry.summary = FeedText.bounded(child.textContent, limits.maximumTextBytes) }
            case (let ns, "author") where rss(ns):
                if let author = child.trimmedText { entry.authors.append(author) }
            case (let ns, "category") where rss(ns):
                if let category = child.trimmedText { entry.categories.append(category) }
            case (let ns, "pubdate") where rss(ns):
                if entry.published == nil { entry.published = child.trimmedText.flatMap(FeedDate.parse) }
            case (let ns, "enclosure") where rss(ns):
                if entry.enclosure == nil, let url = child.attributes["url"].flatMap({ WebLink.resolve($0, against: child.base) }) {
                    entry.enclosure = FeedEnclosure(
                        url: url, type: child.attributes["type"].flatMap(FeedText.trimmed),
                        length: FeedText.integer(child.attributes["length"]))
                }
            case (FeedNamespace.dublinCore, "creator"):
                if let author = child.trimmedText { entry.authors.append(author) }
            case (FeedNamespace.dublinCore, "subject"):
                if let category = child.trimmedText { entry.categories.append(category) }
            case (FeedNamespace.dublinCore, "date"):
                if entry.published == nil { entry.published = child.trimmedText.flatMap(FeedDate.parse) }
            case (FeedNamespace.dublinCoreTerms, "modified"), (FeedNamespace.atom, "updated"):
                if entry.updated == nil { entry.updated = child.trimmedText.flatMap(FeedDate.parse) }
            case (FeedNamespace.content, "encoded"):
                if entry.content == nil { entry.content = FeedText.bounded(child.textContent, limits.maximumTextBytes) }
            case (FeedNamespace.atom, "link"):
                if atomLink == nil, AtomElements.relation(of: child) == "alternate", let href = child.attributes["href"] {
                    atomLink = WebLink.resolve(href, against: child.base)
                }
            default: break
            }
        }
        if entry.id == nil, let about = item.attributes["rdf:about"].flatMap(FeedText.trimmed) { entry.id = about }
        if entry.link == nil { entry.link = atomLink }
        if entry.link == nil, let permaLink, let guid = permaLink.trimmedText { entry.link = WebLink.resolve(guid, against: permaLink.base) }
        if entry.link == nil, let about = item.attributes["rdf:about"] { entry.link = WebLink.resolve(about, against: item.base) }
        if entry.title == nil { entry.title = ExtensionTitle.title(of: item, plain: Self.shownTitle) }
        if entry.enclosure == nil { entry.enclosure = MediaRSS.enclosure(in: item) }
        return entry
    }
}

/// Media RSS (`media:content`, `media:thumbnail`, also inside `media:group`) as an enclosure.
enum MediaRSS {
    /// The first `media:content` with a `url`, else the first `media:thumbnail`.
    static func enclosure(in item: XMLNode) -> FeedEnclosure? {
        var thumbnail: FeedEnclosure?
        for child in item.children where child.namespace == FeedNamespace.media {
            switch child.name {
            case "content":
                if let url = child.attributes["url"].flatMap({ WebLink.resolve($0, against: child.base) }) {
                    return FeedEnclosure(
                        url: url, type: child.attributes["type"].flatMap(FeedText.trimmed),
                        length: FeedText.integer(child.attributes["filesize"]))
                }
            case "group":
                if let inner = enclosure(in: child) { return inner }
            case "thumbnail":
                if thumbnail == nil, let url = child.attributes["url"].flatMap({ WebLink.resolve($0, against: child.base) }) {
                    thumbnail = FeedEnclosure(url: url)
                }
            default: break
            }
        }
        return thumbnail
    }
}
