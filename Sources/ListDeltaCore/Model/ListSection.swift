/// A section's header: identity and the two titles a list view shows.
public struct SectionHeader: Sendable, Equatable {
    /// The section's identity, unique in the list (1 to 256 UTF-8 bytes).
    public var id: String
    /// The title shown above the section, or `nil`.
    public var title: String?
    /// The short title shown in the section index, or `nil`.
    public var indexTitle: String?

    /// Creates a header.
    public init(id: String, title: String? = nil, indexTitle: String? = nil) {
        self.id = id
        self.title = title
        self.indexTitle = indexTitle
    }

    /// `{"id","title","indexTitle"}`, titles as `null` when absent.
    public var jsonValue: JSONValue { .object(jsonObject) }

    var jsonObject: JSONObject {
        var object = JSONObject()
        object.appendUnchecked("id", .string(id))
        object.appendUnchecked("title", title.map(JSONValue.string) ?? .null)
        object.appendUnchecked("indexTitle", indexTitle.map(JSONValue.string) ?? .null)
        return object
    }
}

/// A section of a list: a header and its items in order.
public struct ListSection: Sendable, Equatable {
    /// The header (id and titles).
    public var header: SectionHeader
    /// The items, in display order.
    public var items: [ListItem]

    /// Creates a section.
    public init(id: String, title: String? = nil, indexTitle: String? = nil, items: [ListItem] = []) {
        self.header = SectionHeader(id: id, title: title, indexTitle: indexTitle)
        self.items = items
    }

    /// Creates a section from a header and items.
    public init(header: SectionHeader, items: [ListItem]) {
        self.header = header
        self.items = items
    }

    /// The section's identity.
    public var id: String { header.id }

    /// The section as docs/api.md serves it: `{"id","title","indexTitle","items"}`.
    public var jsonValue: JSONValue {
        var object = header.jsonObject
        object.appendUnchecked("items", .array(items.map(\.jsonValue)))
        return .object(object)
    }
}
