/// Reads and validates one write body; the state of one `DataProviderFactory.makeProvider` call.
struct WriteBodyReader {
    let limits: DocumentLimits
    private var itemIDs: Set<String> = []
    private var sectionIDs: Set<String> = []
    private var cells: [String: String]?

    // Member names are compared, not hashed: the lists are short, and an item's are checked 100,000 times a write.
    private static func isDocumentMember(_ key: String) -> Bool {
        switch key {
        case "id", "kind", "revision", "cells", "title", "items", "sections": true
        default: false
        }
    }

    private static func isSectionMember(_ key: String) -> Bool {
        switch key {
        case "id", "title", "indexTitle", "items": true
        default: false
        }
    }

    /// The depth of an item's `model` inside a document: document, sections, section, items, item.
    static let modelDepthOffset = 5

    init(limits: DocumentLimits) {
        self.limits = limits
    }

    mutating func read(_ body: JSONValue, listID: String) throws(DocumentError) -> (provider: any DataProvider, cells: [String: String]?) {
        let root = JSONPointer()
        guard case .object(let object) = body else {
            throw DocumentError(.wrongType, at: root, "the body must be a JSON object, not \(body.typeName)")
        }
        try Self.checkMembers(object, allowed: Self.isDocumentMember, at: root)
        if let id = object["id"] {
            guard case .string(let given) = id, given == listID else {
                throw DocumentError(.invalidID, at: root.appending("id"), "the body's id must equal the list id in the path, \"\(listID)\"")
            }
        }
        cells = try Self.readCells(object["cells"], at: root.appending("cells"))
        let kind = try readKind(object, at: root)
        switch kind {
        case .array:
            if let items = object["items"] {
                guard object["sections"] == nil else {
                    throw DocumentError(.invalidKind, at: root.appending("sections"), "give either items or sections, not both")
                }
                let title = try Self.optionalString(object["title"], at: root.appending("title"))
                let list = try readItems(items, at: root.appending("items"), section: 0)
                return (ArrayDataProvider(title: title, items: list), cells)
            }
            let sections = try readSections(object["sections"], at: root.appending("sections"))
            guard sections.count == 1 else {
                throw DocumentError(.invalidKind, at: root.appending("sections"), "an array list has exactly one section, not \(sections.count)")
            }
            try rejectMember("title", in: object, at: root, because: "the long form takes the title in its section")
            return (ArrayDataProvider(section: sections[0]), cells)
        case .sections:
            try rejectMember("items", in: object, at: root, because: "a sections list takes items inside its sections")
            try rejectMember("title", in: object, at: root, because: "a sections list takes titles in its sections")
            return (SectionDataProvider(sections: try readSections(object["sections"], at: root.appending("sections"))), cells)
        }
    }

    private func readKind(_ object: JSONObject, at root: JSONPointer) throws(DocumentError) -> ListKind {
        if let value = object["kind"] {
            guard case .string(let text) = value, let kind = ListKind(rawValue: text) else {
                throw DocumentError(.invalidKind, at: root.appending("kind"), "kind must be \"array\" or \"sections\"")
            }
            return kind
        }
        switch (object["items"] != nil, object["sections"] != nil) {
        case (true, false): return .array
        case (false, true): return .sections
        case (true, true):
            throw DocumentError(.invalidKind, at: root.appending("items"), "give either items or sections, not both")
        case (false, false):
            throw DocumentError(.missingMember, at: root, "the body needs items (an array list) or sections")
        }
    }

    /// A `cells` member: absent or `null` (no registry), or an object of type → cell identifier strings.
    static func readCells(_ value: JSONValue?, at pointer: @autoclosure () -> JSONPointer) throws(DocumentError) -> [String: String]? {
        guard let value, !value.isNull else { return nil }
        guard case .object(let object) = value else {
            throw DocumentError(.wrongType, at: pointer(), "cells must be an object of type -> cell identifier")
        }
        var registry: [String: String] = [:]
        for (type, cell) in object.entries {
            guard case .string(let identifier) = cell else {
                throw DocumentError(.wrongType, at: pointer().appending(type), "a cell identifier must be a string")
            }
            registry[type] = identifier
        }
        return registry
    }

    private mutating func readSections(_ value: JSONValue?, at pointer: JSONPointer) throws(DocumentError) -> [ListSection] {
        guard let value else { throw DocumentError(.missingMember, at: pointer.parent ?? pointer, "sections is missing") }
        guard case .array(let elements) = value else {
            throw DocumentError(.wrongType, at: pointer, "sections must be an array")
        }
        guard elements.count <= limits.maximumSections else {
            throw DocumentError(.tooManySections, at: pointer, "at most \(limits.maximumSections) sections are allowed, not \(elements.count)")
        }
        var sections: [ListSection] = []
        sections.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            sections.append(try readSection(element, at: pointer.appending(index), section: index))
        }
        return sections
    }

    private mutating func readSection(_ value: JSONValue, at pointer: @autoclosure () -> JSONPointer, section: Int) throws(DocumentError) -> ListSection {
        guard case .object(let object) = value else {
            throw DocumentError(.wrongType, at: pointer(), "a section must be an object")
        }
        try Self.checkMembers(object, allowed: Self.isSectionMember, at: pointer())
        let id = try Self.readID(object["id"], limits: limits, at: pointer().appending("id"), what: "section")
        guard sectionIDs.insert(id).inserted else {
            throw DocumentError(.duplicateID, at: pointer().appending("id"), "section id \"\(id)\" occurs twice")
        }
        let title = try Self.optionalString(object["title"], at: pointer().appending("title"))
        let indexTitle = try Self.optionalString(object["indexTitle"], at: pointer().appending("indexTitle"))
        let items = try object["items"].map { value throws(DocumentError) in
            try readItems(value, at: pointer().appending("items"), section: section)
        } ?? []
        return ListSection(id: id, title: title, indexTitle: indexTitle, items: items)
    }

    private mutating func readItems(_ value: JSONValue, at pointer: @autoclosure () -> JSONPointer, section: Int) throws(DocumentError) -> [ListItem] {
        guard case .array(let elements) = value else {
            throw DocumentError(.wrongType, at: pointer(), "items must be an array")
        }
        guard itemIDs.count + elements.count <= limits.maximumItems else {
            throw DocumentError(.tooManyItems, at: pointer(), "at most \(limits.maximumItems) items are allowed in a list")
        }
        itemIDs.reserveCapacity(itemIDs.count + elements.count)
        var items: [ListItem] = []
        items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let cells = self.cells, limits = self.limits
            items.append(try Self.readItem(element, cells: cells, limits: limits, at: pointer().appending(index)) { id in
                itemIDs.insert(id).inserted
            })
        }
        return items
    }

    /// One item of a write, checked: members, id (and, through `isNew`, its uniqueness in the list), type, cell
    /// (given, or resolved from `cells` by type) and the model's depth, in that order.
    /// - Parameters:
    ///   - pointer: Where the item is, evaluated only for an error.
    ///   - isNew: Claims the id for this item; `false` when another item has it.
    /// - Throws: `DocumentError` with a JSON Pointer into the body.
    /// - Complexity: O(*m*) in the size of the model (its depth is measured).
    static func readItem(
        _ value: JSONValue, cells: [String: String]?, limits: DocumentLimits, at pointer: @autoclosure () -> JSONPointer,
        isNew: (String) -> Bool
    ) throws(DocumentError) -> ListItem {
        guard case .object(let object) = value else {
            throw DocumentError(.wrongType, at: pointer(), "an item must be an object")
        }
        // One pass over the members (an item's are read 100,000 times in a large write), unknown ones refused.
        var members: (id: JSONValue?, type: JSONValue?, cell: JSONValue?, model: JSONValue?)
        for (key, member) in object.entries {
            switch key {
            case "id": members.id = member
            case "type": members.type = member
            case "cell": members.cell = member
            case "model": members.model = member
            default: throw DocumentError(.unknownMember, at: pointer().appending(key), "unknown member \"\(key)\"")
            }
        }
        let id = try readID(members.id, limits: limits, at: pointer().appending("id"), what: "item")
        guard isNew(id) else {
            throw DocumentError(.duplicateID, at: pointer().appending("id"), "item id \"\(id)\" occurs twice; item ids are unique in the whole list")
        }
        let type = try optionalString(members.type, at: pointer().appending("type"))
        let cell: String?
        if let given = members.cell {
            cell = try optionalString(given, at: pointer().appending("cell"))
        } else {
            cell = try resolveCell(type: type, cells: cells, at: pointer())
        }
        let model = members.model ?? .null
        if model.depth + modelDepthOffset > limits.maximumDepth {
            throw DocumentError(.tooDeep, at: pointer().appending("model"), "the document nests deeper than \(limits.maximumDepth) levels")
        }
        return ListItem(id: id, type: type, cell: cell, model: model)
    }

    /// The cell of an item of `type` that names none: the registry's entry for the type (`nil` without a
    /// registry or a type); a type the registry lacks is an error.
    static func resolveCell(type: String?, cells: [String: String]?, at pointer: @autoclosure () -> JSONPointer) throws(DocumentError) -> String? {
        guard let cells, let type else { return nil }
        guard let cell = cells[type] else {
            throw DocumentError(.unknownCellType, at: pointer().appending("type"), "type \"\(type)\" is not in the cells registry")
        }
        return cell
    }

    private static func readID(
        _ value: JSONValue?, limits: DocumentLimits, at pointer: @autoclosure () -> JSONPointer, what: String
    ) throws(DocumentError) -> String {
        guard let value else { throw DocumentError(.missingMember, at: pointer().parent ?? pointer(), "a \(what) needs an id") }
        guard case .string(let id) = value else {
            throw DocumentError(.wrongType, at: pointer(), "a \(what) id must be a string")
        }
        guard limits.allowsID(id) else {
            throw DocumentError(.invalidID, at: pointer(), "a \(what) id must have 1 to \(limits.maximumIDBytes) UTF-8 bytes, not \(id.utf8.count)")
        }
        return id
    }

    private static func optionalString(_ value: JSONValue?, at pointer: @autoclosure () -> JSONPointer) throws(DocumentError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw DocumentError(.wrongType, at: pointer(), "must be a string or null, not \(other.typeName)")
        }
    }

    private static func checkMembers(_ object: JSONObject, allowed: (String) -> Bool, at pointer: @autoclosure () -> JSONPointer) throws(DocumentError) {
        for (key, _) in object.entries where !allowed(key) {
            throw DocumentError(.unknownMember, at: pointer().appending(key), "unknown member \"\(key)\"")
        }
    }

    private func rejectMember(_ key: String, in object: JSONObject, at pointer: JSONPointer, because reason: String) throws(DocumentError) {
        if object[key] != nil {
            throw DocumentError(.invalidKind, at: pointer.appending(key), reason)
        }
    }
}
