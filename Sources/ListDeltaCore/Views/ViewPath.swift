/// How views read a JSON Pointer into an item: `/section` (the id of the base section holding the item), `/id`,
/// `/type`, `/cell`, or `/model` optionally followed by more tokens, resolved into the item as
/// `ListItem.jsonValue` serves it (so an absent `type` is missing, an absent `cell` is `null`).
enum ViewPath {
    /// The members of an item a path may start with.
    static let itemMembers: Set<String> = ["id", "type", "cell", "model"]

    /// The rule, in words, for error messages.
    static let rule = "a path is \"/section\", \"/id\", \"/type\", \"/cell\", or a JSON Pointer starting with /model"

    /// Parses and checks a path's text; `nil` when it is not a valid view path.
    /// - Complexity: O(*n*) in the length of `text`.
    static func parse(_ text: String) -> JSONPointer? {
        guard let pointer = try? JSONPointer(parsing: text), let first = pointer.tokens.first else { return nil }
        // Only the model has members: a path below a string (the section's id, the item's id, type or cell) would
        // match nothing, ever.
        if first != "model" { return itemMembers.contains(first) || first == "section" ? (pointer.tokens.count == 1 ? pointer : nil) : nil }
        return pointer
    }

    /// The value at `path` for `item` held by the base section `section`, or `nil` when the path is not there.
    /// - Complexity: O(*d*) for a path of *d* tokens (plus linear key lookups in objects).
    static func resolve(_ path: JSONPointer, in item: ListItem, section: String) -> JSONValue? {
        let tokens = path.tokens
        guard let first = tokens.first else { return item.jsonValue }
        var current: JSONValue
        switch first {
        case "section": return tokens.count == 1 ? .string(section) : nil
        case "id": current = .string(item.id)
        case "type":
            guard let type = item.type else { return nil }
            current = .string(type)
        case "cell": current = item.cell.map(JSONValue.string) ?? .null
        case "model": current = item.model
        default: return nil
        }
        for token in tokens.dropFirst() {
            switch current {
            case .object(let object):
                guard let next = object[token] else { return nil }
                current = next
            case .array(let array):
                guard let index = JSONValue.arrayIndex(token, count: array.count, allowEnd: false) else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }
}
