/// One element of a parsed `XMLDocument`, in the ElementTree shape: `text` before the first child, each child's
/// `tail` after it. A view (the document and an index): copying it copies nothing.
struct XMLNode {
    let document: XMLDocument
    let index: Int

    @inline(__always)
    private var element: XMLDocument.Element { document.elements[index] }

    /// The local name, lower-cased (`creator` for `dc:creator`, `pubdate` for `pubDate`).
    var name: String { document.strings[Int(element.name)] }
    /// The namespace URI, or `""` for none.
    var namespace: String { document.strings[Int(element.namespace)] }
    /// The attributes by qualified name, lower-cased (`href`, `xml:base`, `rdf:about`, `ispermalink`).
    var attributes: [String: String] {
        let set = element.attributes
        return set < 0 ? [:] : document.attributeSets[Int(set)]
    }
    /// The base URL in effect for this element: its `xml:base` resolved against its parent's, or the document's.
    var base: String? {
        let base = element.base
        return base < 0 ? nil : document.bases[Int(base)]
    }

    /// The child elements, in order.
    var children: XMLChildren { XMLChildren(document: document, start: Int(element.firstChild)) }

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

    /// The range of the character data inside the element, children's included.
    private var contentRange: Range<Int> { Int(element.contentStart)..<Int(element.contentEnd) }

    /// All character data inside the element, children's included, in document order.
    /// - Complexity: O(*n*) in the text.
    var textContent: String { document.string(contentRange) }

    /// The text content with surrounding white space removed, or `nil` when that leaves nothing.
    /// - Complexity: O(*n*) in the text.
    var trimmedText: String? {
        var range = contentRange
        let characters = document.characters
        while !range.isEmpty, isXMLSpace(characters[range.lowerBound]) { range = (range.lowerBound + 1)..<range.upperBound }
        while !range.isEmpty, isXMLSpace(characters[range.upperBound - 1]) { range = range.lowerBound..<(range.upperBound - 1) }
        guard !range.isEmpty else { return nil }
        let text = document.string(range)
        // Other Unicode white space (a no-break space …) at either end is trimmed the slower way.
        if characters[range.lowerBound] >= 0x80 || characters[range.upperBound - 1] >= 0x80 { return FeedText.trimmed(text) }
        return text
    }

    /// The element's content as markup: its text and its children serialized (local names, attributes sorted),
    /// for XHTML and inline XML content.
    /// - Complexity: O(*n*) in the size of the subtree.
    var innerMarkup: String {
        var result: [UInt8] = []
        appendInnerMarkup(to: &result)
        return String(decoding: result, as: UTF8.self)
    }

    private func appendInnerMarkup(to result: inout [UInt8]) {
        let first = Int(element.firstChild)
        let textEnd = first >= 0 ? Int(document.elements[first].contentStart) : Int(element.contentEnd)
        FeedText.appendEscapedMarkup(document.characters[Int(element.contentStart)..<textEnd], to: &result)
        for child in children {
            child.appendOuterMarkup(to: &result)
            FeedText.appendEscapedMarkup(document.characters[Int(child.element.contentEnd)..<document.tailEnd(of: child.index)], to: &result)
        }
    }

    private func appendOuterMarkup(to result: inout [UInt8]) {
        result.append(UInt8(ascii: "<"))
        result += name.utf8
        let attributes = attributes
        for key in attributes.keys.sorted() where key != "xml:base" && !key.hasPrefix("xmlns") {
            result.append(0x20)
            result += key.utf8
            result += "=\"".utf8
            FeedText.appendEscapedMarkup(ArraySlice((attributes[key] ?? "").utf8), to: &result, quotes: true)
            result.append(UInt8(ascii: "\""))
        }
        if element.firstChild < 0 && element.contentStart == element.contentEnd {
            result += "/>".utf8
            return
        }
        result.append(UInt8(ascii: ">"))
        appendInnerMarkup(to: &result)
        result += "</".utf8
        result += name.utf8
        result.append(UInt8(ascii: ">"))
    }
}

/// The child elements of an `XMLNode`, in order.
struct XMLChildren: Sequence {
    let document: XMLDocument
    /// The first child's index, or -1.
    let start: Int

    /// Whether there are none.
    var isEmpty: Bool { start < 0 }

    /// The first child, if any.
    var first: XMLNode? { start < 0 ? nil : XMLNode(document: document, index: start) }

    struct Iterator: IteratorProtocol {
        let document: XMLDocument
        var upcoming: Int

        mutating func next() -> XMLNode? {
            guard upcoming >= 0 else { return nil }
            let node = XMLNode(document: document, index: upcoming)
            upcoming = Int(document.elements[upcoming].nextSibling)
            return node
        }
    }

    func makeIterator() -> Iterator { Iterator(document: document, upcoming: start) }
}
