/// Reads a write body's JSON text straight into typed sections and items: the fast path of
/// `DataProviderFactory.readDocument(json:listID:revision:maximumDepth:)`.
///
/// No JSON tree is built for the document's structure (only items' models are `JSONValue`s), and every rule is
/// checked as the bytes go by. The reader accepts only bodies it reads without doubt and gives up on anything
/// else: malformed JSON, escapes in member names, duplicate members, a `cells` registry after the items, any
/// rule a write breaks. The general path (`JSONReader`, then `WriteBodyReader`) then reads the body again and words
/// the error exactly, so this reader needs no messages, and what it accepts it reads as the general path would.
struct TypedWriteBodyReader {
    /// The reader declines the body; the general path decides.
    struct GiveUp: Error {}

    private var scanner: JSONScanner
    private let limits: DocumentLimits
    private let maximumDepth: Int
    private var itemIDs: Set<String> = []
    private var sectionIDs: Set<String> = []
    private var cells: [String: String]?
    /// Set once items were read: a registry that comes later would have changed how their cells resolved.
    private var readItems = false

    init(bytes: UnsafeBufferPointer<UInt8>, limits: DocumentLimits, maximumDepth: Int) {
        scanner = JSONScanner(bytes: bytes, maximumDepth: maximumDepth)
        self.limits = limits
        self.maximumDepth = maximumDepth
        // Room for the ids a body of this size may hold (an item takes some 40 bytes or more), so a large write
        // rehashes none of them; growth covers bodies of smaller items.
        itemIDs.reserveCapacity(min(bytes.count / 40, limits.maximumItems))
    }

    /// The provider and registry of the whole body, which must be one document object.
    /// - Complexity: O(*n*) in the size of the body.
    mutating func read(listID: String) throws(GiveUp) -> (provider: any DataProvider, cells: [String: String]?) {
        var kind: ListKind?
        var title: JSONValue?
        var items: [ListItem]?
        var sections: [ListSection]?
        var seen = MemberSet()
        // Bounds below the structure's own depth (an item in a section is at 5), and limits no list can meet, are
        // the general path's to word.
        guard maximumDepth >= 5, limits.maximumDepth >= WriteBodyReader.modelDepthOffset, limits.maximumItems >= 0,
            limits.maximumSections >= 0
        else { throw GiveUp() }
        guard try openObject() else { throw GiveUp() }
        repeat {
            switch try readMember(of: Self.documentMembers, seen: &seen) {
            case 0:
                readItems = true
                items = try readItemList(depth: 2)
            case 1:
                readItems = true
                sections = try readSections()
            case 2:
                guard let text = try readOptionalString(), let given = ListKind(rawValue: text) else { throw GiveUp() }
                kind = given
            case 3:
                title = try readValue(depth: 1)
            case 4:
                guard try readOptionalString() == listID else { throw GiveUp() }
            case 5:
                guard !readItems else { throw GiveUp() }
                let registry = try readValue(depth: 1)
                do { cells = try WriteBodyReader.readCells(registry, at: JSONPointer()) } catch { throw GiveUp() }
            default:
                _ = try readValue(depth: 1)  // revision: ignored
            }
        } while try nextMember()
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw GiveUp() }
        return (try Self.provider(kind: kind, title: title, items: items, sections: sections), cells)
    }

    /// The provider `WriteBodyReader.read` builds for these members, where it builds one.
    private static func provider(
        kind: ListKind?, title: JSONValue?, items: [ListItem]?, sections: [ListSection]?
    ) throws(GiveUp) -> any DataProvider {
        switch (kind ?? (items != nil ? .array : .sections), items, sections) {
        case (.array, let items?, nil):
            switch title {
            case nil, .null?: return ArrayDataProvider(title: nil, items: items)
            case .string(let text)?: return ArrayDataProvider(title: text, items: items)
            default: throw GiveUp()
            }
        case (.array, nil, let sections?) where sections.count == 1 && title == nil:
            return ArrayDataProvider(section: sections[0])
        case (.sections, nil, let sections?) where title == nil:
            return SectionDataProvider(sections: sections)
        default:
            throw GiveUp()
        }
    }

    private mutating func readSections() throws(GiveUp) -> [ListSection] {
        var sections: [ListSection] = []
        guard try openArray() else { return sections }
        repeat {
            guard sections.count < limits.maximumSections else { throw GiveUp() }
            sections.append(try readSection())
        } while try nextElement()
        return sections
    }

    private mutating func readSection() throws(GiveUp) -> ListSection {
        var id: String?
        var title: String?
        var indexTitle: String?
        var items: [ListItem] = []
        var seen = MemberSet()
        guard try openObject() else { throw GiveUp() }
        repeat {
            switch try readMember(of: Self.sectionMembers, seen: &seen) {
            case 0: id = try readID()
            case 1: items = try readItemList(depth: 4)
            case 2: title = try readOptionalString()
            default: indexTitle = try readOptionalString()
            }
        } while try nextMember()
        guard let id, sectionIDs.insert(id).inserted else { throw GiveUp() }
        return ListSection(id: id, title: title, indexTitle: indexTitle, items: items)
    }

    /// An array of items whose array is at `depth` (the document is depth 1).
    private mutating func readItemList(depth: Int) throws(GiveUp) -> [ListItem] {
        var items: [ListItem] = []
        guard try openArray() else { return items }
        repeat {
            guard itemIDs.count < limits.maximumItems else { throw GiveUp() }
            items.append(try readItem(depth: depth + 1))
        } while try nextElement()
        return items
    }

    /// One item, at `depth`: `{"id", "type"?, "cell"?, "model"?}` with the rules of `WriteBodyReader.readItem`.
    private mutating func readItem(depth: Int) throws(GiveUp) -> ListItem {
        var id: String?
        var type: String?
        var cell: String??
        var model = JSONValue.null
        var seen = MemberSet()
        guard try openObject() else { throw GiveUp() }
        repeat {
            switch try readMember(of: Self.itemMembers, seen: &seen) {
            case 0: id = try readID()
            case 1: type = try readOptionalString()
            // The depth WriteBodyReader allows a model, as a bound on the scanner: deeper gives up.
            case 2: model = try readValue(depth: depth, limit: limits.maximumDepth - WriteBodyReader.modelDepthOffset + depth)
            default: cell = .some(try readOptionalString())
            }
        } while try nextMember()
        guard let id, itemIDs.insert(id).inserted else { throw GiveUp() }
        if cell == nil {
            do { cell = try WriteBodyReader.resolveCell(type: type, cells: cells, at: JSONPointer()) } catch { throw GiveUp() }
        }
        return ListItem(id: id, type: type, cell: cell ?? nil, model: model)
    }

    // MARK: - Tokens

    /// A string of 1 to `maximumIDBytes` UTF-8 bytes.
    private mutating func readID() throws(GiveUp) -> String {
        guard let id = try readOptionalString(), limits.allowsID(id) else { throw GiveUp() }
        return id
    }

    /// A string, or `nil` for `null`; anything else gives up.
    private mutating func readOptionalString() throws(GiveUp) -> String? {
        guard scanner.position < scanner.bytes.count else { throw GiveUp() }
        switch scanner.bytes[scanner.position] {
        case UInt8(ascii: "\""):
            do { return try scanner.readString() } catch { throw GiveUp() }
        case UInt8(ascii: "n"):
            guard case .null = try readValue(depth: 0) else { throw GiveUp() }
            return nil
        default:
            throw GiveUp()
        }
    }

    /// Any JSON value inside a container at `depth`, nesting at most to `limit` (and the reader's own bound).
    private mutating func readValue(depth: Int, limit: Int = .max) throws(GiveUp) -> JSONValue {
        scanner.maximumDepth = min(maximumDepth, limit)
        defer { scanner.maximumDepth = maximumDepth }
        do { return try scanner.readValue(depth: depth) } catch { throw GiveUp() }
    }

    /// The members each object may have, by the number `readMember` gives them (most frequent first).
    private static let documentMembers: [StaticString] = ["items", "sections", "kind", "title", "id", "cells", "revision"]
    private static let sectionMembers: [StaticString] = ["id", "items", "title", "indexTitle"]
    private static let itemMembers: [StaticString] = ["id", "type", "model", "cell"]

    /// Reads a member's name and colon: its position in `names`, claimed in `seen`. An unknown name, or one the
    /// object already had, gives up.
    private mutating func readMember(of names: [StaticString], seen: inout MemberSet) throws(GiveUp) -> Int {
        let key = try readKey()
        guard let position = names.firstIndex(where: { Self.matches(key, $0) }) else { throw GiveUp() }
        try seen.insert(UInt8(position))
        return position
    }

    /// A member name without escapes, then its colon; the scanner is left at the value.
    private mutating func readKey() throws(GiveUp) -> UnsafeBufferPointer<UInt8> {
        scanner.skipWhitespace()
        guard take(UInt8(ascii: "\"")) else { throw GiveUp() }
        let start = scanner.position
        while scanner.position < scanner.bytes.count {
            switch scanner.bytes[scanner.position] {
            case UInt8(ascii: "\""):
                let key = UnsafeBufferPointer(rebasing: scanner.bytes[start..<scanner.position])
                scanner.position += 1
                scanner.skipWhitespace()
                guard take(UInt8(ascii: ":")) else { throw GiveUp() }
                scanner.skipWhitespace()
                return key
            case UInt8(ascii: "\\"), 0..<0x20:
                throw GiveUp()
            default:
                scanner.position += 1
            }
        }
        throw GiveUp()
    }

    private static func matches(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let bytes = name.utf8Start
        for offset in 0..<key.count where key[offset] != bytes[offset] { return false }
        return true
    }

    /// Consumes `{`; `false` when the object is empty (its `}` consumed too).
    private mutating func openObject() throws(GiveUp) -> Bool {
        try open(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}"))
    }

    /// Consumes `[`; `false` when the array is empty (its `]` consumed too).
    private mutating func openArray() throws(GiveUp) -> Bool {
        try open(UInt8(ascii: "["), closedBy: UInt8(ascii: "]"))
    }

    private mutating func open(_ opener: UInt8, closedBy closer: UInt8) throws(GiveUp) -> Bool {
        scanner.skipWhitespace()
        guard take(opener) else { throw GiveUp() }
        scanner.skipWhitespace()
        if take(closer) { return false }
        return true
    }

    /// After a member: `true` when another follows (its comma consumed), `false` at the end of the object.
    private mutating func nextMember() throws(GiveUp) -> Bool {
        try next(closedBy: UInt8(ascii: "}"))
    }

    /// After an element: `true` when another follows (its comma consumed), `false` at the end of the array.
    private mutating func nextElement() throws(GiveUp) -> Bool {
        try next(closedBy: UInt8(ascii: "]"))
    }

    private mutating func next(closedBy closer: UInt8) throws(GiveUp) -> Bool {
        scanner.skipWhitespace()
        if take(UInt8(ascii: ",")) {
            scanner.skipWhitespace()
            return true
        }
        guard take(closer) else { throw GiveUp() }
        return false
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard scanner.position < scanner.bytes.count, scanner.bytes[scanner.position] == byte else { return false }
        scanner.position += 1
        return true
    }

    /// The members an object has had so far, by number; a second one of a kind gives up (JSON forbids it here).
    private struct MemberSet {
        private var bits: UInt8 = 0

        mutating func insert(_ member: UInt8) throws(GiveUp) {
            let bit: UInt8 = 1 << member
            guard bits & bit == 0 else { throw GiveUp() }
            bits |= bit
        }
    }
}
