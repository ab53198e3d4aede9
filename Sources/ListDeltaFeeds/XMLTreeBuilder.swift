import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads XML into `XMLNode`s with FoundationXML's `XMLParser` (libxml2's SAX interface): namespace-aware, no
/// external entities, element nesting bounded.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    private let maximumDepth: Int
    private let documentBase: String?
    private var stack: [XMLNode] = []
    private var root: XMLNode?
    private var failure: FeedParseError?

    private init(maximumDepth: Int, documentBase: String?) {
        self.maximumDepth = maximumDepth
        self.documentBase = documentBase
    }

    /// Parses prepared bytes (see `XMLInput`) into a tree and returns its root element.
    /// - Throws: `.malformed` with the line and column libxml2 reports, or when elements nest deeper than
    ///   `maximumDepth`.
    /// - Complexity: O(*n*) in the bytes.
    static func parse(_ input: XMLInput, baseURL: String?, maximumDepth: Int) throws(FeedParseError) -> XMLNode {
        let builder = XMLTreeBuilder(maximumDepth: maximumDepth, documentBase: baseURL)
        let parser = XMLParser(data: Data(input.bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure { throw failure }
        guard succeeded, let root = builder.root else {
            throw FeedParseError(
                .malformed,
                "The XML could not be read (line \(parser.lineNumber), column \(parser.columnNumber)).")
        }
        return root
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        guard failure == nil else { return }
        guard stack.count < maximumDepth else {
            failure = FeedParseError(
                .malformed,
                "The XML nests elements deeper than \(maximumDepth) levels (line \(parser.lineNumber)); a feed never needs that.")
            parser.abortParsing()
            return
        }
        let parentBase = stack.last?.base ?? documentBase
        var base = parentBase
        if let declared = attributeDict["xml:base"] { base = FeedText.resolve(declared, against: parentBase) ?? parentBase }
        var namespace = namespaceURI ?? ""
        if namespace.isEmpty, let qName, let colon = qName.firstIndex(of: ":") {
            namespace = Self.wellKnownNamespaces[String(qName[..<colon])] ?? ""
        }
        let node = XMLNode(name: elementName, namespace: namespace, attributes: attributeDict, base: base)
        if let parent = stack.last {
            parent.children.append(node)
        } else if root == nil {
            root = node
        }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        if !stack.isEmpty { stack.removeLast() }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        append(String(decoding: CDATABlock, as: UTF8.self))
    }

    /// Adds character data where it belongs: the open element's text, or the tail of its last child.
    @inline(__always)
    private func append(_ string: String) {
        guard let current = stack.last else { return }
        if let last = current.children.last {
            last.tail += string
        } else {
            current.text += string
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        guard failure == nil else { return }
        let code = (parseError as NSError).code
        guard !Self.isTolerated(code) else { return }
        failure = FeedParseError(
            .malformed,
            "The XML is malformed at line \(parser.lineNumber), column \(parser.columnNumber): \(Self.reason(code)) (XML error \(code)).")
        // Stop at the first error: XMLParser runs libxml2 in recovery mode, whose guesses are not worth reading
        // (and each further error costs memory FoundationXML never frees).
        parser.abortParsing()
    }

    /// libxml2's warnings and namespace errors, which real feeds have and which do not make the XML unreadable:
    /// an unknown XML version, odd `xml:lang` or namespace URIs, an undeclared prefix (see `wellKnownNamespaces`).
    private static func isTolerated(_ code: Int) -> Bool {
        switch code {
        case 97, 98, 99, 100, 102, 106, 107, 200...204: return true
        default: return false
        }
    }

    /// Namespaces for prefixes feeds use without declaring them (libxml2 then reports no namespace).
    private static let wellKnownNamespaces: [String: String] = [
        "dc": FeedNamespace.dublinCore, "dcterms": FeedNamespace.dublinCoreTerms, "content": FeedNamespace.content,
        "media": FeedNamespace.media, "atom": FeedNamespace.atom, "rdf": FeedNamespace.rdf,
    ]

    /// A short explanation of the libxml2 error codes (`xmlParserErrors`, which XMLParser passes on as its
    /// error codes) a feed meets in practice.
    private static func reason(_ code: Int) -> String {
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
