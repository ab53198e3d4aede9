extension ListDiff {
    /// The batch diff as docs/api.md serves it.
    /// - Complexity: O(*k*) in the size of the operations and counts.
    public var jsonValue: JSONValue {
        var sectionsObject = JSONObject()
        sectionsObject.appendUnchecked("deleted", .array(sections.deleted.map { .number(JSONNumber($0)) }))
        sectionsObject.appendUnchecked("inserted", .array(sections.inserted.map { insertion in
            var object = JSONObject()
            object.appendUnchecked("at", .number(JSONNumber(insertion.at)))
            object.appendUnchecked("section", insertion.section.jsonValue)
            return .object(object)
        }))
        sectionsObject.appendUnchecked("moved", .array(sections.moved.map { move in
            var object = JSONObject()
            object.appendUnchecked("from", .number(JSONNumber(move.from)))
            object.appendUnchecked("to", .number(JSONNumber(move.to)))
            return .object(object)
        }))
        sectionsObject.appendUnchecked("updated", .array(sections.updated.map { update in
            var object = JSONObject()
            object.appendUnchecked("at", .number(JSONNumber(update.at)))
            object.appendUnchecked("section", update.header.jsonValue)
            return .object(object)
        }))
        var itemsObject = JSONObject()
        itemsObject.appendUnchecked("deleted", .array(items.deleted.map(\.jsonValue)))
        itemsObject.appendUnchecked("inserted", .array(items.inserted.map { Self.placed($0.at, $0.item) }))
        itemsObject.appendUnchecked("moved", .array(items.moved.map { move in
            var object = JSONObject()
            object.appendUnchecked("from", move.from.jsonValue)
            object.appendUnchecked("to", move.to.jsonValue)
            return .object(object)
        }))
        itemsObject.appendUnchecked("updated", .array(items.updated.map { Self.placed($0.at, $0.item) }))
        var counts = JSONObject()
        counts.appendUnchecked("from", .array(fromCounts.map { .number(JSONNumber($0)) }))
        counts.appendUnchecked("to", .array(toCounts.map { .number(JSONNumber($0)) }))
        var object = JSONObject()
        object.appendUnchecked("id", .string(listID))
        object.appendUnchecked("from", .number(JSONNumber(from)))
        object.appendUnchecked("to", .number(JSONNumber(to)))
        object.appendUnchecked("sections", .object(sectionsObject))
        object.appendUnchecked("items", .object(itemsObject))
        object.appendUnchecked("counts", .object(counts))
        return .object(object)
    }

    private static func placed(_ at: ItemPath, _ item: ListItem) -> JSONValue {
        var object = JSONObject()
        object.appendUnchecked("at", at.jsonValue)
        object.appendUnchecked("item", item.jsonValue)
        return .object(object)
    }

    /// Reads a batch diff in docs/api.md's JSON form (as a client or the store does).
    /// - Throws: `DiffApplicationError` naming the first member that does not fit the format.
    /// - Complexity: O(*k*) in the size of the diff.
    public init(json: JSONValue) throws(DiffApplicationError) {
        let root = try DiffJSON.object(json, "diff")
        self.init(
            listID: try DiffJSON.string(root["id"], "id"),
            from: try DiffJSON.int(root["from"], "from"),
            to: try DiffJSON.int(root["to"], "to")
        )
        let counts = try DiffJSON.object(root["counts"], "counts")
        fromCounts = try DiffJSON.array(counts["from"], "counts.from").map { value throws(DiffApplicationError) in try DiffJSON.int(value, "counts.from") }
        toCounts = try DiffJSON.array(counts["to"], "counts.to").map { value throws(DiffApplicationError) in try DiffJSON.int(value, "counts.to") }
        let sectionOps = try DiffJSON.object(root["sections"], "sections")
        sections.deleted = try DiffJSON.array(sectionOps["deleted"], "sections.deleted").map { value throws(DiffApplicationError) in
            try DiffJSON.int(value, "sections.deleted")
        }
        sections.inserted = try DiffJSON.array(sectionOps["inserted"], "sections.inserted").map { value throws(DiffApplicationError) in
            let object = try DiffJSON.object(value, "sections.inserted")
            return SectionInsertion(at: try DiffJSON.int(object["at"], "at"), section: try DiffJSON.section(object["section"]))
        }
        sections.moved = try DiffJSON.array(sectionOps["moved"], "sections.moved").map { value throws(DiffApplicationError) in
            let object = try DiffJSON.object(value, "sections.moved")
            return Move(from: try DiffJSON.int(object["from"], "from"), to: try DiffJSON.int(object["to"], "to"))
        }
        sections.updated = try DiffJSON.array(sectionOps["updated"], "sections.updated").map { value throws(DiffApplicationError) in
            let object = try DiffJSON.object(value, "sections.updated")
            return SectionUpdate(at: try DiffJSON.int(object["at"], "at"), header: try DiffJSON.section(object["section"]).header)
        }
        let itemOps = try DiffJSON.object(root["items"], "items")
        items.deleted = try DiffJSON.array(itemOps["deleted"], "items.deleted").map { value throws(DiffApplicationError) in
            try DiffJSON.path(value)
        }
        items.inserted = try DiffJSON.array(itemOps["inserted"], "items.inserted").map { value throws(DiffApplicationError) in
            let object = try DiffJSON.object(value, "items.inserted")
            return ItemInsertion(at: try DiffJSON.path(object["at"]), item: try DiffJSON.item(object["item"]))
        }
        items.moved = try DiffJSON.array(itemOps["moved"], "items.moved").map { value throws(DiffApplicationError) in
            let object = try DiffJSON.object(value, "items.moved")
            return Move(from: try DiffJSON.path(object["from"]), to: try DiffJSON.path(object["to"]))
        }
        items.updated = try DiffJSON.array(itemOps["updated"], "items.updated").map { value throws(DiffApplicationError) in
            let object = try DiffJSON.object(value, "items.updated")
            return ItemUpdate(at: try DiffJSON.path(object["at"]), item: try DiffJSON.item(object["item"]))
        }
    }
}

/// Readers for the members of a diff's JSON form.
enum DiffJSON {
    static func object(_ value: JSONValue?, _ name: String) throws(DiffApplicationError) -> JSONObject {
        guard case .object(let object)? = value else { throw DiffApplicationError("\(name) must be an object") }
        return object
    }

    static func array(_ value: JSONValue?, _ name: String) throws(DiffApplicationError) -> [JSONValue] {
        guard case .array(let array)? = value else { throw DiffApplicationError("\(name) must be an array") }
        return array
    }

    static func int(_ value: JSONValue?, _ name: String) throws(DiffApplicationError) -> Int {
        guard case .number(let number)? = value, let int = number.intValue else {
            throw DiffApplicationError("\(name) must be an integer")
        }
        return int
    }

    static func string(_ value: JSONValue?, _ name: String) throws(DiffApplicationError) -> String {
        guard case .string(let string)? = value else { throw DiffApplicationError("\(name) must be a string") }
        return string
    }

    static func optionalString(_ value: JSONValue?, _ name: String) throws(DiffApplicationError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let string)?: return string
        default: throw DiffApplicationError("\(name) must be a string or null")
        }
    }

    static func path(_ value: JSONValue?) throws(DiffApplicationError) -> ItemPath {
        let pair = try array(value, "an index path")
        guard pair.count == 2 else { throw DiffApplicationError("an index path has two numbers") }
        return ItemPath(section: try int(pair[0], "section index"), item: try int(pair[1], "item index"))
    }

    static func item(_ value: JSONValue?) throws(DiffApplicationError) -> ListItem {
        let object = try object(value, "item")
        return ListItem(
            id: try string(object["id"], "item id"),
            type: try optionalString(object["type"], "item type"),
            cell: try optionalString(object["cell"], "item cell"),
            model: object["model"] ?? .null
        )
    }

    static func section(_ value: JSONValue?) throws(DiffApplicationError) -> ListSection {
        let object = try object(value, "section")
        let items = try object["items"].map { value throws(DiffApplicationError) in
            try array(value, "section items").map { element throws(DiffApplicationError) in try item(element) }
        } ?? []
        return ListSection(
            id: try string(object["id"], "section id"),
            title: try optionalString(object["title"], "section title"),
            indexTitle: try optionalString(object["indexTitle"], "section indexTitle"),
            items: items
        )
    }
}
