/// Reads Microsoft's Channel Definition Format (`<CHANNEL HREF="…"><TITLE/><ABSTRACT/><ITEM HREF="…"/></CHANNEL>`,
/// names in any case): each `ITEM`, in sub-channels too, is an entry whose link is its `HREF`, summary its
/// `ABSTRACT` and update time its `LASTMOD`.
struct CDFReader {
    let limits: FeedLimits

    /// The feed a CDF root element describes.
    /// - Complexity: O(*n*) in the size of the tree.
    func read(_ root: XMLNode) -> Feed {
        var feed = Feed(format: .cdf)
        feed.title = root.child("title", in: "")?.trimmedText.flatMap(RSSParser.shownTitle)
        feed.subtitle = root.child("abstract", in: "")?.trimmedText
        feed.link = root.attributes["href"].flatMap { WebLink.resolve($0, against: root.base) }
        var items: [XMLNode] = []
        collectItems(of: root, into: &items)
        let kept = min(items.count, limits.maximumEntries)
        feed.droppedEntries = items.count - kept
        feed.entries = items.prefix(kept).map(entry)
        return feed
    }

    /// The `ITEM`s of `channel` and of its sub-channels, in document order (nesting is bounded by the parse).
    private func collectItems(of channel: XMLNode, into items: inout [XMLNode]) {
        for child in channel.children where child.namespace.isEmpty {
            if child.name == "item" {
                items.append(child)
            } else if child.name == "channel" {
                collectItems(of: child, into: &items)
            }
        }
    }

    private func entry(_ item: XMLNode) -> FeedEntry {
        var entry = FeedEntry()
        entry.title = item.child("title", in: "")?.trimmedText.flatMap(RSSParser.shownTitle)
        entry.link = item.attributes["href"].flatMap { WebLink.resolve($0, against: item.base) }
        entry.summary = item.child("abstract", in: "")?.trimmedText.map { FeedText.cut($0, toBytes: limits.maximumTextBytes) }
        entry.updated = item.attributes["lastmod"].flatMap(FeedDate.parse)
        return entry
    }
}
