/// An entry's title from the extensions readers fall back to when the entry has no title of its own: Dublin Core's
/// `dc:title`, else Media RSS's `media:title` (the item's own, else the first inside a `media:group` or
/// `media:content`).
///
/// A title found elsewhere in an item (an `image` or a `category` nested in it) is the title of that thing, not of
/// the entry, and is never taken.
enum ExtensionTitle {
    /// The fallback title of `item`, as a reader shows it: a `media:title` with `type="html"` reduced to its text
    /// (see `HTMLText`), any other through `plain` (the format's rule for titles that do not say their type).
    /// - Complexity: O(*c*) in the item's children, plus those of its Media RSS groups and contents.
    static func title(of item: XMLNode, plain: (String) -> String?) -> String? {
        if let title = item.child("title", in: FeedNamespace.dublinCore)?.trimmedText { return plain(title) }
        guard let media = mediaTitle(in: item), let text = media.trimmedText else { return nil }
        return media.attributes["type"].flatMap(FeedText.trimmed)?.lowercased() == "html" ? HTMLText.text(text) : plain(text)
    }

    /// The first `media:title` among `node`'s children, else inside its first `media:group` or `media:content` that
    /// has one, in document order.
    private static func mediaTitle(in node: XMLNode) -> XMLNode? {
        var nested: XMLNode?
        for child in node.children where child.namespace == FeedNamespace.media {
            switch child.name {
            case "title": return child
            case "group", "content": if nested == nil { nested = mediaTitle(in: child) }
            default: break
            }
        }
        return nested
    }
}
