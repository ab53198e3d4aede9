public import ListDeltaCore

/// The request a write was sent as: a method and a JSON body. Once sent with a key it is kept with the key (in a
/// ``ListStorage`` too), so a write whose answer was lost is sent again exactly, with the same key.
public struct WriteRequest: Sendable, Equatable {
    /// `PATCH` or `PUT`.
    public var method: String
    /// The JSON Patch, or the document.
    public var body: JSONValue

    /// A request.
    public init(method: String, body: JSONValue) {
        self.method = method
        self.body = body
    }

    /// `{"method", "body"}`, as client.js stores it.
    public var jsonValue: JSONValue { ["method": .string(method), "body": body] }

    /// Reads the stored form; `nil` when it is not one.
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let method = object["method"]?.stringValue, method == "PATCH" || method == "PUT",
              let body = object["body"]
        else { return nil }
        self.init(method: method, body: body)
    }

    /// The request that sends `write` against `document` (the newest the writer holds): a put and a patch as they
    /// are; an insert, update, remove or move as a JSON Patch whose `test` operations guard the ids at the paths it
    /// uses (its item, its section, its anchor), so that it fails with a 409 rather than land on another item when
    /// the indexes moved. Fails with what is gone from `document`.
    /// - Complexity: O(*n*) in the items.
    static func guarded(_ write: ListWrite, against document: ListDocument) -> Result<WriteRequest, WriteConflict.Reason> {
        let sections = document.sections
        switch write {
        case .put(let body):
            return .success(WriteRequest(method: "PUT", body: body))
        case .patch(let operations):
            return .success(WriteRequest(method: "PATCH", body: operations))
        case .insert(let item, let placement):
            return ResolvedPlace.resolve(placement, in: sections).map { place in
                patch(guards(place, in: sections) + [["op": "add", "path": .string(path(place)), "value": sent(item)]])
            }
        case .update(let id, let changes):
            guard let at = ResolvedPlace.locate(id, in: sections) else { return .failure(.item) }
            // `add` sets a member whether the item has it or not (`replace` needs it there).
            let sets: [JSONValue] = changes.members.map { name, value in
                ["op": "add", "path": .string("\(itemPath(at))/\(name)"), "value": value]
            }
            return .success(patch([test("\(itemPath(at))/id", id)] + sets))
        case .remove(let id):
            guard let at = ResolvedPlace.locate(id, in: sections) else { return .failure(.item) }
            return .success(patch([test("\(itemPath(at))/id", id), ["op": "remove", "path": .string(itemPath(at))]]))
        case .move(let id, let placement):
            guard let at = ResolvedPlace.locate(id, in: sections) else { return .failure(.item) }
            // The target path counts without the item (RFC 6902: a move removes, then adds); the guards, which run
            // before it, count with it.
            var without = sections
            without[at.section].items.remove(at: at.item)
            return ResolvedPlace.resolve(placement, in: without).map { place in
                var guarded = place
                if case .after(let anchor) = place.position, place.section == at.section, anchor >= at.item {
                    guarded.position = .after(anchor + 1)
                }
                let move: JSONValue = ["op": "move", "from": .string(itemPath(at)), "path": .string(path(place))]
                return patch([test("\(itemPath(at))/id", id)] + guards(guarded, in: sections) + [move])
            }
        }
    }

    /// An inserted item as sent: without `cell` when it has none, so the server resolves it from the list's
    /// registry (as the writer shows it meanwhile).
    private static func sent(_ item: ListItem) -> JSONValue {
        guard item.cell == nil, var object = item.jsonValue.objectValue else { return item.jsonValue }
        object["cell"] = nil
        return .object(object)
    }

    private static func patch(_ operations: [JSONValue]) -> WriteRequest {
        WriteRequest(method: "PATCH", body: .array(operations))
    }

    private static func test(_ path: String, _ id: String) -> JSONValue {
        ["op": "test", "path": .string(path), "value": .string(id)]
    }

    private static func itemPath(_ at: ItemPath) -> String { "/sections/\(at.section)/items/\(at.item)" }

    /// `test`s of the section's id and, after an anchor, of the anchor's id (indexes of `sections`).
    private static func guards(_ place: ResolvedPlace, in sections: [ListSection]) -> [JSONValue] {
        var guards = [test("/sections/\(place.section)/id", sections[place.section].id)]
        if case .after(let anchor) = place.position {
            guards.append(test(itemPath(ItemPath(section: place.section, item: anchor)) + "/id", sections[place.section].items[anchor].id))
        }
        return guards
    }

    /// Where an item placed at `place` is added: `-` for last (the end, whatever was added meanwhile).
    private static func path(_ place: ResolvedPlace) -> String {
        "/sections/\(place.section)/items/" + (place.position == .last ? "-" : String(place.index(among: 0)))
    }
}
