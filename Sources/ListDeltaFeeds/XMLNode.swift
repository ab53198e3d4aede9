/// One element of a parsed XML document, in the ElementTree shape: `text` before the first child, each child's
/// `tail` after it. A reference type only while the tree is built; the format parsers just read it.
final class XMLNode {
    /// The local name (`creator` for `dc:creator`).
    let name: String
    /// The namespace URI, or `""` for none.
    let namespace: String
    /// The attributes by qualified name (`href`, `xml:base`, `rdf:about`).
    let attributes: [String: String]
    /// The base URL in effect for this element: its `xml:base` resolved against its parent's, or the document's.
    let base: String?
    /// Character data before the first child (entities decoded, CDATA included).
    var text: String = ""
    /// Character data after this element's end tag, up to the next sibling or the parent's end.
    var tail: String = ""
    /// The child elements, in order.
    var children: [XMLNode] = []

    init(name: String, namespace: String, attributes: [String: String], base: String?) {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.base = base
    }

    /// The first child with this local name in a namespace `accepts` accepts.
    func child(_ name: String, where accepts: (String) -> Bool) -> XMLNode? {
        children.first { $0.name == name && accepts($0.namespace) }
    }

    /// The first child with this local name in `namespace`.
    func child(_ name: String, in namespace: String) -> XMLNode? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    /// The children with this local name in `namespace`.
    func children(_ name: String, in namespace: String) -> [XMLNode] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// All character data inside the element, children's included, in document order.
    /// - Complexity: O(*n*) in the size of the subtree.
    var textContent: String {
        if children.isEmpty { return text }
        var result = text
        appendDescendantText(to: &result)
        return result
    }

    private func appendDescendantText(to result: inout String) {
        for child in children {
            result += child.text
            child.appendDescendantText(to: &result)
            result += child.tail
        }
    }

    /// The text content with surrounding white space removed, or `nil` when that leaves nothing.
    var trimmedText: String? { FeedText.trimmed(textContent) }

    /// The element's content as markup: its text and its children serialized (local names, attributes sorted),
    /// for Atom's `type="xhtml"`.
    /// - Complexity: O(*n*) in the size of the subtree.
    var innerMarkup: String {
        var result = FeedText.escapedMarkup(text)
        for child in children {
            child.appendOuterMarkup(to: &result)
            result += FeedText.escapedMarkup(child.tail)
        }
        return result
    }

    private func appendOuterMarkup(to result: inout String) {
        result += "<" + name
        for key in attributes.keys.sorted() where key != "xml:base" && !key.hasPrefix("xmlns") {
            result += " \(key)=\"\(FeedText.escapedMarkup(attributes[key] ?? "", quotes: true))\""
        }
        if children.isEmpty && text.isEmpty {
            result += "/>"
            return
        }
        result += ">"
        result += innerMarkup
        result += "</" + name + ">"
    }
}
