/// A parsed XML document in three arrays: its elements in document order (linked to their parents, first children
/// and next siblings by index), its character data in one UTF-8 buffer, and its names, attributes and bases.
///
/// An element's content (its text and every descendant's, in order) is one range of `characters`, since character
/// data arrives in document order: `XMLNode` reads texts from there, and only the texts a parser asks for become
/// `String`s. Nothing is allocated per element.
final class XMLDocument {
    /// One element. Indices are into the document's arrays; -1 means none.
    struct Element {
        /// The local name's index in `strings` (lower-cased).
        var name: Int32
        /// The namespace URI's index in `strings` (`""` for none is index 0).
        var namespace: Int32
        /// The index of its attributes in `attributeSets`, or -1 without attributes.
        var attributes: Int32
        /// The index of the base URL in effect in `bases`, or -1 when there is none.
        var base: Int32
        var parent: Int32
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        var nextSibling: Int32 = -1
        /// Where its content starts in `characters` (at its start tag) and ends (at its end tag).
        var contentStart: Int32
        var contentEnd: Int32
    }

    let elements: [Element]
    let characters: [UInt8]
    let strings: [String]
    let attributeSets: [[String: String]]
    let bases: [String]

    init(elements: [Element], characters: [UInt8], strings: [String], attributeSets: [[String: String]], bases: [String]) {
        self.elements = elements
        self.characters = characters
        self.strings = strings
        self.attributeSets = attributeSets
        self.bases = bases
    }

    /// The character data in `range` as a `String`.
    @inline(__always)
    func string(_ range: Range<Int>) -> String {
        characters.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// Where the element's tail (the character data after its end tag) ends: at its next sibling's start tag, else
    /// at its parent's end tag.
    func tailEnd(of index: Int) -> Int {
        let element = elements[index]
        if element.nextSibling >= 0 { return Int(elements[Int(element.nextSibling)].contentStart) }
        if element.parent >= 0 { return Int(elements[Int(element.parent)].contentEnd) }
        return Int(element.contentEnd)
    }
}
