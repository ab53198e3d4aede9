public import ListDeltaCore

extension ListWrite {
    /// The write as client.js stores it (see ``ListWrite``).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["kind"] = .string(kind)
        switch self {
        case .insert(let item, let placement):
            object["item"] = item.jsonValue
            placement.write(into: &object)
        case .update(let id, let changes):
            object["id"] = .string(id)
            var members = JSONObject()
            for (name, value) in changes.members { members[name] = value }
            object["changes"] = .object(members)
        case .remove(let id):
            object["id"] = .string(id)
        case .move(let id, let placement):
            object["id"] = .string(id)
            placement.write(into: &object)
        case .put(let document):
            object["document"] = document
        case .patch(let operations):
            object["operations"] = operations
        }
        return .object(object)
    }

    /// Reads the JSON form (client.js's too).
    /// - Throws: ``ListWriteError/invalid(_:)`` naming what does not fit.
    public init(json: JSONValue) throws(ListWriteError) {
        guard let object = json.objectValue, let kind = object["kind"]?.stringValue else {
            throw .invalid("a stored write is an object with a kind")
        }
        func id() throws(ListWriteError) -> String {
            guard let id = object["id"]?.stringValue else { throw .invalid("a stored \(kind) has an id") }
            return id
        }
        switch kind {
        case "insert":
            guard let value = object["item"], let item = try? ListItem(servedJSON: value) else {
                throw .invalid("a stored insert has an item")
            }
            self = .insert(item, at: try ListPlacement(in: object))
        case "update":
            guard let changes = object["changes"]?.objectValue else { throw .invalid("a stored update has changes") }
            self = .update(id: try id(), changes: ItemChanges(model: changes["model"], cell: changes["cell"], type: changes["type"]))
        case "remove":
            self = .remove(id: try id())
        case "move":
            self = .move(id: try id(), to: try ListPlacement(in: object))
        case "put":
            guard let document = object["document"] else { throw .invalid("a stored put has a document") }
            self = .put(document)
        case "patch":
            guard let operations = object["operations"] else { throw .invalid("a stored patch has operations") }
            self = .patch(operations)
        default:
            throw .invalid("no write is of kind \(kind)")
        }
    }
}

extension ListPlacement {
    /// `section` when named; `after`: absent for last, `null` for first, an item id.
    func write(into object: inout JSONObject) {
        if let section { object["section"] = .string(section) }
        switch anchor {
        case .last: break
        case .first: object["after"] = .null
        case .after(let id): object["after"] = .string(id)
        }
    }

    init(in object: JSONObject) throws(ListWriteError) {
        let section = object["section"]?.stringValue
        switch object["after"] {
        case nil: self.init(section: section, anchor: .last)
        case .null?: self.init(section: section, anchor: .first)
        case .string(let id)?: self.init(section: section, anchor: .after(id))
        default: throw .invalid("a stored place's after is an item id or null")
        }
    }
}
