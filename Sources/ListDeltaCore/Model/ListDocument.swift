/// Which provider built a document.
public enum ListKind: String, Sendable, Equatable, CaseIterable {
    /// One section, like a flat array with an optional title (the Array provider).
    case array
    /// Any number of sections (the Section provider).
    case sections
}

/// One revision of a list: the document of docs/api.md.
public struct ListDocument: Sendable, Equatable {
    /// The list id, `[A-Za-z0-9._-]{1,128}`.
    public var id: String
    /// Which provider built it.
    public var kind: ListKind
    /// The revision this document is; 0 for the empty list before the first write.
    public var revision: Int
    /// The cell registry (item `type` -> cell identifier), or `nil` when the list has none.
    public var cells: [String: String]?
    /// The sections, in display order.
    public var sections: [ListSection]

    /// Creates a document.
    public init(
        id: String, kind: ListKind = .sections, revision: Int = 0, cells: [String: String]? = nil,
        sections: [ListSection] = []
    ) {
        self.id = id
        self.kind = kind
        self.revision = revision
        self.cells = cells
        self.sections = sections
    }

    /// What a list id must be, in words.
    public static let idRule = "a list id is 1 to 128 characters of A-Z, a-z, 0-9, '.', '_' and '-' (and not '.' or '..')"

    /// `true` when `id` is a valid list id: `[A-Za-z0-9._-]{1,128}`, not `.` or `..` (it names a path segment).
    /// - Complexity: O(*n*) in the length of `id`.
    public static func isValidID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id != "." && id != ".."
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }

    /// The empty list a client holds at revision 0.
    public static func empty(id: String) -> ListDocument {
        ListDocument(id: id, kind: .sections, revision: 0)
    }

    /// The number of items in all sections.
    public var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }

    /// The item count of each section, as a diff's `counts` gives them.
    public var sectionCounts: [Int] { sections.map(\.items.count) }

    /// The registry as a JSON object with its types in sorted order, or `nil`.
    public var cellsJSON: JSONValue? {
        cells.map { registry in
            var object = JSONObject()
            for type in registry.keys.sorted() { object.appendUnchecked(type, .string(registry[type]!)) }
            return .object(object)
        }
    }

    /// `true` when `other` has the same content: everything but `revision`.
    public func hasSameContent(as other: ListDocument) -> Bool {
        id == other.id && kind == other.kind && cells == other.cells && sections == other.sections
    }

    /// The document as docs/api.md serves it: `{"id","kind","revision","cells"?,"sections"}`.
    public var jsonValue: JSONValue { jsonValue(sections: sections.map(\.jsonValue)) }

    /// The document's JSON with `sections` as its sections' JSON (the header members are its own).
    func jsonValue(sections: [JSONValue]) -> JSONValue {
        var object = JSONObject()
        object.appendUnchecked("id", .string(id))
        object.appendUnchecked("kind", .string(kind.rawValue))
        object.appendUnchecked("revision", .number(JSONNumber(revision)))
        if let cellsJSON { object.appendUnchecked("cells", cellsJSON) }
        object.appendUnchecked("sections", .array(sections))
        return .object(object)
    }

    public static func == (lhs: ListDocument, rhs: ListDocument) -> Bool {
        lhs.revision == rhs.revision && lhs.hasSameContent(as: rhs)
    }
}
