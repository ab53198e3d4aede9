/// Builds `XMLNode`s from SAX events (libxml2's SAX2 interface, see `LibXML2Reader`): names
/// lower-cased as feed readers compare them, `xml:base` resolved on the way, element nesting bounded, character
/// data gathered as bytes and made a `String` once per run of text.
final class XMLTreeBuilder {
    let maximumDepth: Int
    private let documentBase: String?
    private var stack: [XMLNode] = []
    private(set) var root: XMLNode?
    /// The first error that stops the parse (a malformed document, too deep a nesting).
    var failure: FeedParseError?
    /// Character data since the last start or end tag, as UTF-8.
    private var pending: [UInt8] = []

    init(maximumDepth: Int, documentBase: String?) {
        self.maximumDepth = maximumDepth
        self.documentBase = documentBase
        pending.reserveCapacity(4_096)
    }

    /// Whether another element may open under the current one.
    var mayOpenElement: Bool { stack.count < maximumDepth }

    /// Opens an element: `name` and the attribute names are already lower-cased, `namespace` is its URI or `""`.
    /// - Complexity: O(*a*) in the attributes, plus resolving an `xml:base`.
    func open(name: String, namespace: String, attributes: [String: String]) {
        flushText()
        let parentBase = stack.last?.base ?? documentBase
        var base = parentBase
        if let declared = attributes["xml:base"] { base = FeedText.resolve(declared, against: parentBase) ?? parentBase }
        let node = XMLNode(name: name, namespace: namespace, attributes: attributes, base: base)
        if let parent = stack.last {
            parent.children.append(node)
        } else if root == nil {
            root = node
        }
        stack.append(node)
    }

    /// Closes the open element.
    func close() {
        flushText()
        if !stack.isEmpty { stack.removeLast() }
    }

    /// Character data (entities and character references already decoded, CDATA included).
    @inline(__always)
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !stack.isEmpty else { return }
        pending.append(contentsOf: bytes)
    }

    /// Moves the pending text where it belongs: the open element's text, or the tail of its last child.
    private func flushText() {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        guard let current = stack.last else { return }
        let string = String(decoding: pending, as: UTF8.self)
        if let last = current.children.last {
            if last.tail.isEmpty { last.tail = string } else { last.tail += string }
        } else if current.text.isEmpty {
            current.text = string
        } else {
            current.text += string
        }
    }
}
