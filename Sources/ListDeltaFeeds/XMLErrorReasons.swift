/// libxml2's error codes (`xmlParserErrors`) as a feed reader treats them.
enum XMLErrorReasons {
    /// libxml2's warnings and namespace errors, which real feeds have and which do not make the XML unreadable:
    /// an unknown XML version, odd `xml:lang` or namespace URIs, an undeclared prefix (see
    /// `XMLWellKnownNamespaces`).
    static func isTolerated(_ code: Int) -> Bool {
        switch code {
        case 97, 98, 99, 100, 102, 106, 107, 200...204: return true
        default: return false
        }
    }

    /// A short explanation of the errors a feed meets in practice.
    static func reason(_ code: Int) -> String {
        switch code {
        case 3, 4: return "the document is empty or does not start with an element"
        case 5: return "there is content after the root element"
        case 8, 9, 81: return "a character that is not allowed in XML (wrong encoding, or binary data?)"
        case 23: return "an entity reference without its ';' (write & as &amp;)"
        case 26, 27: return "an undeclared entity such as &nbsp; (XML knows only &amp; &lt; &gt; &quot; &apos; and numeric references)"
        case 31, 32: return "the declared encoding is not supported"
        case 39, 40, 41: return "an attribute without a properly quoted value"
        case 42: return "an attribute given twice"
        case 68: return "a name is expected (often a bare '&' or '<' in text: write &amp; and &lt;)"
        case 72, 73, 74: return "a tag that is not closed"
        case 76: return "an end tag that does not match the open element (an unclosed tag?)"
        case 77, 85: return "the document ends before its elements are closed (truncated?)"
        default: return "libxml2 refused the document"
        }
    }
}

/// Namespaces for prefixes feeds use without declaring them (libxml2 then reports no namespace).
enum XMLWellKnownNamespaces {
    static let byPrefix: [String: String] = [
        "dc": FeedNamespace.dublinCore, "dcterms": FeedNamespace.dublinCoreTerms, "content": FeedNamespace.content,
        "media": FeedNamespace.media, "atom": FeedNamespace.atom, "rdf": FeedNamespace.rdf,
    ]
}
