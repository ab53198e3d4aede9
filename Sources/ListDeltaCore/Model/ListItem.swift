/// One item of a list: identity (`id`), and content (`type`, `cell`, `model`).
///
/// A value type whose content lives in one shared, immutable box: copying an item (and so copying an array of
/// 100,000 of them, which every change to a large list does once) costs one reference count for the box (and one
/// for an id longer than 15 UTF-8 bytes), not one per field and a generic copy of the model; changing a content
/// field copies the box first when it is shared.
///
/// The id is kept inline, beside the box: a diff reads every id, in the new order, and an id in the box would make
/// each read a pointer chase to wherever that box was allocated (a shuffled list of 100,000 items took twice as
/// long to diff that way).
public struct ListItem: Sendable, Equatable {
    private final class Storage: Sendable {
        let type: String?
        let cell: String?
        let model: JSONValue

        init(type: String?, cell: String?, model: JSONValue) {
            self.type = type
            self.cell = cell
            self.model = model
        }
    }

    /// The item's identity, unique in the whole list (1 to 256 UTF-8 bytes).
    public var id: String
    private var storage: Storage

    /// Creates an item.
    public init(id: String, type: String? = nil, cell: String? = nil, model: JSONValue = .null) {
        self.id = id
        storage = Storage(type: type, cell: cell, model: model)
    }

    /// The view-model type name, used to resolve `cell` from the list's registry.
    public var type: String? {
        get { storage.type }
        set { storage = Storage(type: newValue, cell: cell, model: model) }
    }

    /// The cell (reuse) identifier, as given or resolved at write time.
    public var cell: String? {
        get { storage.cell }
        set { storage = Storage(type: type, cell: newValue, model: model) }
    }

    /// The item's content: any JSON.
    public var model: JSONValue {
        get { storage.model }
        set { storage = Storage(type: type, cell: cell, model: newValue) }
    }

    /// `true` when the content (`type`, `cell`, `model`) differs, so a client must reconfigure the item.
    /// - Complexity: O(1) for copies of one item; else O(*m*) in the size of the models.
    @inlinable
    public func hasDifferentContent(from other: ListItem) -> Bool {
        !isSameStorage(as: other) && (type != other.type || cell != other.cell || model != other.model)
    }

    /// Whether both share one content box (so their content is equal without comparing fields).
    @usableFromInline
    func isSameStorage(as other: ListItem) -> Bool { storage === other.storage }

    public static func == (lhs: ListItem, rhs: ListItem) -> Bool {
        lhs.id == rhs.id && !lhs.hasDifferentContent(from: rhs)
    }

    /// The item as docs/api.md serves it: `{"id", "type"?, "cell", "model"}` (`type` only when set).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.appendUnchecked("id", .string(id))
        if let type { object.appendUnchecked("type", .string(type)) }
        object.appendUnchecked("cell", cell.map(JSONValue.string) ?? .null)
        object.appendUnchecked("model", model)
        return .object(object)
    }
}
