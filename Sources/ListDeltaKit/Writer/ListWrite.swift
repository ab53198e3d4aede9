public import ListDeltaCore

/// A change a ``ListWriter`` makes, by item id: what it means holds whatever the indexes are when it is sent.
///
/// Its JSON form (``jsonValue``, what a ``ListStorage`` keeps) is client.js's: `{"kind": "insert", "item", "section"?,
/// "after"?}`, `{"kind": "update", "id", "changes"}`, `{"kind": "remove", "id"}`, `{"kind": "move", "id", "section"?,
/// "after"?}`, `{"kind": "put", "document"}` and `{"kind": "patch", "operations"}`.
public enum ListWrite: Sendable, Equatable {
    /// Inserts an item (whose id the list does not have) at a place.
    case insert(ListItem, at: ListPlacement)
    /// Replaces some members of an item's content.
    case update(id: String, changes: ItemChanges)
    /// Removes an item.
    case remove(id: String)
    /// Moves an item to a place.
    case move(id: String, to: ListPlacement)
    /// Replaces the whole document (a PUT body, any form docs/api.md accepts).
    case put(JSONValue)
    /// RFC 6902 operations, sent as they are.
    case patch(JSONValue)

    /// `kind`'s value in the JSON form.
    public var kind: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .remove: "remove"
        case .move: "move"
        case .put: "put"
        case .patch: "patch"
        }
    }

    /// The item the write changes (the inserted one for an insert); `nil` for a put or a patch.
    public var itemID: String? {
        switch self {
        case .insert(let item, _): item.id
        case .update(let id, _), .remove(let id), .move(let id, _): id
        case .put, .patch: nil
        }
    }

    /// Whether it names items (an insert, update, remove or move): sent as a JSON Patch built against a document.
    public var isByID: Bool { itemID != nil }

    /// The place an insert or a move goes to.
    public var placement: ListPlacement? {
        switch self {
        case .insert(_, let placement), .move(_, let placement): placement
        default: nil
        }
    }

    /// Checks what the caller gave: ids not empty, a place that names a section or an anchor, a move not after
    /// itself, a patch that is an array of operations.
    /// - Throws: ``ListWriteError/invalid(_:)``.
    func validated() throws(ListWriteError) -> ListWrite {
        if let id = itemID, id.isEmpty { throw .invalid("an item id is not empty") }
        if let placement {
            if placement.section?.isEmpty == true { throw .invalid("a section id is not empty") }
            if case .after(let anchor) = placement.anchor, anchor.isEmpty { throw .invalid("an anchor id is not empty") }
            guard placement.section != nil || placement.anchorID != nil else {
                throw .invalid("\(kind) needs a section, or an item to go after")
            }
        }
        switch self {
        case .move(let id, let placement) where placement.anchorID == id:
            throw .invalid("an item cannot move after itself")
        case .update(_, let changes):
            try changes.validate()
        case .put(let document):
            guard document.objectValue != nil else { throw .invalid("put takes a document object") }
        case .patch(let operations):
            guard operations.arrayValue != nil else { throw .invalid("patch takes an array of JSON Patch operations") }
        default:
            break
        }
        return self
    }
}

/// Where an inserted or moved item goes: in a section (by id), after an item (by id), first or last.
public struct ListPlacement: Sendable, Equatable {
    /// Where in the section.
    public enum Anchor: Sendable, Equatable {
        /// First in the section.
        case first
        /// Last in the section.
        case last
        /// Right after the item with this id (which must be in the section, when one is named).
        case after(String)
    }

    /// The section's id; `nil` to go where the anchor is.
    public var section: String?
    /// Where in it.
    public var anchor: Anchor

    /// A placement.
    public init(section: String?, anchor: Anchor) {
        self.section = section
        self.anchor = anchor
    }

    /// Last in `section`.
    public static func last(in section: String) -> ListPlacement { ListPlacement(section: section, anchor: .last) }
    /// First in `section`.
    public static func first(in section: String) -> ListPlacement { ListPlacement(section: section, anchor: .first) }
    /// Right after item `id`, in whatever section it is (or in `section`, which it must then be in).
    public static func after(_ id: String, in section: String? = nil) -> ListPlacement {
        ListPlacement(section: section, anchor: .after(id))
    }

    /// The anchor's item id, when it is one.
    public var anchorID: String? {
        if case .after(let id) = anchor { return id }
        return nil
    }
}

/// The members of an item an update replaces: any of `model`, `cell` and `type` (`cell` and `type` a string or
/// `null`); the members left `nil` stay as they are.
public struct ItemChanges: Sendable, Equatable {
    /// The new model.
    public var model: JSONValue?
    /// The new cell identifier: a string, or `.null`.
    public var cell: JSONValue?
    /// The new type name: a string, or `.null`.
    public var type: JSONValue?

    /// Changes of these members.
    public init(model: JSONValue? = nil, cell: JSONValue? = nil, type: JSONValue? = nil) {
        self.model = model
        self.cell = cell
        self.type = type
    }

    /// The members set, in the order `model`, `cell`, `type`.
    var members: [(name: String, value: JSONValue)] {
        [("model", model), ("cell", cell), ("type", type)].compactMap { name, value in value.map { (name, $0) } }
    }

    func validate() throws(ListWriteError) {
        for (name, value) in [("cell", cell), ("type", type)] {
            switch value {
            case nil, .null?, .string?: continue
            default: throw .invalid("an update's \(name) is a string or null")
            }
        }
    }

    /// `item` with these members replaced.
    func applied(to item: ListItem) -> ListItem {
        var changed = item
        if let model { changed.model = model }
        if let cell { changed.cell = cell.stringValue }
        if let type { changed.type = type.stringValue }
        return changed
    }
}
