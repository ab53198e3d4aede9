/// Builds an `XMLDocument` from SAX events (libxml2's SAX2 interface, see `LibXML2Reader`): names interned and
/// lower-cased as feed readers compare them, `xml:base` resolved on the way, element nesting bounded, character
/// data appended to one buffer.
final class XMLTreeBuilder {
    let maximumDepth: Int
    /// The first error that stops the parse (a malformed document, too deep a nesting).
    var failure: FeedParseError?

    private var elements: [XMLDocument.Element] = []
    private var characters: [UInt8] = []
    private var strings: [String] = [""]
    private var stringIDs: [String: Int32] = ["": 0]
    private var attributeSets: [[String: String]] = []
    private var bases: [String] = []
    private let documentBase: Int32
    /// The open elements, innermost last.
    private var stack: [Int32] = []

    init(maximumDepth: Int, documentBase: String?, expectedBytes: Int) {
        self.maximumDepth = maximumDepth
        if let documentBase {
            bases.append(documentBase)
            self.documentBase = 0
        } else {
            self.documentBase = -1
        }
        // Character data is most of a feed; elements are about one per 50 bytes.
        characters.reserveCapacity(expectedBytes)
        elements.reserveCapacity(expectedBytes / 64)
    }

    /// Whether another element may open under the current one.
    var mayOpenElement: Bool { stack.count < maximumDepth }

    /// The index of `string` in the document's strings (names and namespace URIs), added when new.
    /// - Complexity: O(1) expected.
    func intern(_ string: String) -> Int32 {
        if let id = stringIDs[string] { return id }
        let id = Int32(strings.count)
        strings.append(string)
        stringIDs[string] = id
        return id
    }

    /// The string an `intern` index stands for.
    func string(_ id: Int32) -> String { strings[Int(id)] }

    /// Opens an element: `name` and `namespace` are `intern` indices (the name lower-cased, the namespace `""` for
    /// none), `attributes` by lower-cased qualified name.
    /// - Complexity: O(1) amortized, plus resolving an `xml:base`.
    func open(name: Int32, namespace: Int32, attributes: [String: String]) {
        let parent = stack.last ?? -1
        var base = parent >= 0 ? elements[Int(parent)].base : documentBase
        if let declared = attributes["xml:base"] {
            let parentBase = base >= 0 ? bases[Int(base)] : nil
            if let resolved = FeedText.resolve(declared, against: parentBase) {
                bases.append(resolved)
                base = Int32(bases.count - 1)
            }
        }
        var attributeSet: Int32 = -1
        if !attributes.isEmpty {
            attributeSets.append(attributes)
            attributeSet = Int32(attributeSets.count - 1)
        }
        let index = Int32(elements.count)
        let position = Int32(characters.count)
        elements.append(XMLDocument.Element(
            name: name, namespace: namespace, attributes: attributeSet, base: base, parent: parent,
            contentStart: position, contentEnd: position))
        if parent >= 0 {
            let previous = elements[Int(parent)].lastChild
            if previous >= 0 { elements[Int(previous)].nextSibling = index } else { elements[Int(parent)].firstChild = index }
            elements[Int(parent)].lastChild = index
        }
        stack.append(index)
    }

    /// Closes the open element.
    func close() {
        guard let index = stack.popLast() else { return }
        elements[Int(index)].contentEnd = Int32(characters.count)
    }

    /// Character data (entities and character references already decoded, CDATA included), kept only inside the
    /// root element.
    @inline(__always)
    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !stack.isEmpty else { return }
        characters.append(contentsOf: bytes)
    }

    /// The root element of what was built, or `nil` when no element was seen.
    func finish() -> XMLNode? {
        guard !elements.isEmpty else { return nil }
        let document = XMLDocument(elements: elements, characters: characters, strings: strings, attributeSets: attributeSets, bases: bases)
        return XMLNode(document: document, index: 0)
    }
}
