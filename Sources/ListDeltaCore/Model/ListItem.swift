/// One item of a list: identity (`id`), and content (`type`, `cell`, `model`).
public struct ListItem: Sendable, Equatable {
    /// The item's identity, unique in the whole list (1 to 256 UTF-8 bytes).
    public var id: String
    /// The view-model type name, used to resolve `cell` from the list's registry.
    public var type: String?
    /// The cell (reuse) identifier, as given or resolved at write time.
    public var cell: String?
    /// The item's content: any JSON.
    public var model: JSONValue

    /// Creates an item.
    public init(id: String, type: String? = nil, cell: String? = nil, model: JSONValue = .null) {
        self.id = id
        self.type = type
        self.cell = cell
        self.model = model
    }

    /// `true` when the content (`type`, `cell`, `model`) differs, so a client must reconfigure the item.
    @inlinable
    public func hasDifferentContent(from other: ListItem) -> Bool {
        type != other.type || cell != other.cell || model != other.model
    }

    /// The item as API.md serves it: `{"id", "type"?, "cell", "model"}` (`type` only when set).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.appendUnchecked("id", .string(id))
        if let type { object.appendUnchecked("type", .string(type)) }
        object.appendUnchecked("cell", cell.map(JSONValue.string) ?? .null)
        object.appendUnchecked("model", model)
        return .object(object)
    }
}
