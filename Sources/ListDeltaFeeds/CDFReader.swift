/// Reads Microsoft's Channel Definition Format (`<CHANNEL HREF="…"><TITLE/><ABSTRACT/><ITEM HREF="…"/></CHANNEL>`,
/// names in any case): each `ITEM`, in sub-channels too, is an entry whose link is its `HREF`, summary its
/// `ABSTRACT` and update time its `LASTMOD`. A `BASE` attribute (CDF's `xml:base`) sets the base an element's own
/// `HREF` and everything inside it resolve against.
struct CDFReader {
    let limits: FeedLimits

    /// The feed a CDF root element describes.
    /// - Complexity: O(*n*) in the size of the tree.
    func read(_ root: XMLNode) -> Feed {
        var feed = Feed(format: .cdf)
        let base = Self.base(of: root, inherited: root.base)
        feed.title = root.child("title", in: "")?.trimmedText.flatMap(RSSParser.shownTitle)
        feed.subtitle = root.child("abstract", in: "")?.trimmedText
        feed.link = root.attributes["href"].flatMap { WebLink.resolve($0, against: base) }
        var items: [(node: XMLNode, base: String?)] = []
        collectItems(of: root, base: base, into: &items)
        let kept = min(items.count, limits.maximumEntries)
        feed.droppedEntries = items.count - kept
        feed.entries = items.prefix(kept).map { entry($0.node, base: Self.base(of: $0.node, inherited: $0.base)) }
        return feed
    }

    /// The base `node` sets: its `BASE` resolved against the base in effect (its own `xml:base` if it has one, else
    /// `inherited`, its channel's), else that base.
    private static func base(of node: XMLNode, inherited: String?) -> String? {
        let attributes = node.attributes
        let enclosing = attributes["xml:base"] != nil ? node.base : inherited
        return attributes["base"].flatMap { FeedText.resolve($0, against: enclosing) } ?? enclosing
    }

    /// The `ITEM`s of `channel` and of its sub-channels, in document order, each with its channel's base (nesting
    /// is bounded by the parse).
    private func collectItems(of channel: XMLNode, base: String?, into items: inout [(node: XMLNode, base: String?)]) {
        for child in channel.children where child.namespace.isEmpty {
            if child.name == "item" {
                items.append((child, base))
            } else if child.name == "channel" {
                collectItems(of: child, base: Self.base(of: child, inherited: base), into: &items)
            }
        }
    }

    private func entry(_ item: XMLNode, base: String?) -> FeedEntry {
        var entry = FeedEntry()
        entry.title = item.child("title", in: "")?.trimmedText.flatMap(RSSParser.shownTitle)
        entry.link = item.attributes["href"].flatMap { WebLink.resolve($0, against: base) }
        entry.summary = item.child("abstract", in: "")?.trimmedText.map { FeedText.cut($0, toBytes: limits.maximumTextBytes) }
        entry.updated = item.attributes["lastmod"].flatMap(FeedDate.parse)
        return entry
    }
}
