extension ViewDefinition {
    /// The members a definition body may have.
    static let members: Set<String> = ["of", "where", "sort", "offset", "limit", "sections"]

    /// Members a served definition has that a body may carry back and that are ignored: `basedOn` is read-only, so
    /// that what `GET .../view` answers can be edited and sent back (as a document's `revision` is).
    static let readOnlyMembers: Set<String> = ["basedOn"]

    /// Reads and validates a `PUT .../view` body: `{"of", "where"?, "sort"?, "offset"?, "limit"?, "sections"?}`.
    ///
    /// Checks, in this order: the body is an object; it has no unknown member (the first one is named; the
    /// read-only `basedOn` is ignored); `of`,
    /// `where`, `sort`, `offset`, `limit`, `sections`. Absent optional members take their defaults; a member present as
    /// `null` is an error. Whether `of` names a view is left to the caller.
    /// - Parameters:
    ///   - viewID: the view's own list id (`of` must differ from it).
    ///   - limits: `limit` defaults to, and neither it nor `offset` may exceed, `limits.maximumItems`.
    ///   - definitionLimits: the bounds on conditions, sort keys, `in` values, value sizes and the smallest `limit`.
    /// - Throws: ``ViewDefinitionError`` whose `pointer` names the bad member (`/of`, `/where/0/op`, `/limit`, ...).
    /// - Complexity: O(*n*) in the size of the body.
    public init(
        json: JSONValue, viewID: String, limits: DocumentLimits, definitionLimits: DefinitionLimits = DefinitionLimits()
    ) throws(ViewDefinitionError) {
        let root = JSONPointer()
        guard case .object(let body) = json else {
            throw ViewDefinitionError("a view definition must be a JSON object", at: root)
        }
        if let unknown = body.keys.first(where: { !Self.members.contains($0) && !Self.readOnlyMembers.contains($0) }) {
            throw ViewDefinitionError("unknown member \"\(unknown)\" (a view has of, where, sort, offset, limit, sections)", at: root.appending(unknown))
        }
        guard case .string(let base)? = body["of"], ListDocument.isValidID(base) else {
            throw ViewDefinitionError("of must be the id of the base list: \(ListDocument.idRule)", at: root.appending("of"))
        }
        guard base != viewID else {
            throw ViewDefinitionError("a view cannot be a view of itself", at: root.appending("of"))
        }
        self = try Self.readQuery(body, at: root, base: base, limits: limits, definitionLimits: definitionLimits)
    }

    /// Reads the members a definition shares with a live query (all but `of`, which the caller checked: `base`),
    /// in the order `where`, `sort`, `offset`, `limit`, `sections`, with pointers below `root`.
    /// - Complexity: O(*n*) in the size of the members.
    static func readQuery(
        _ body: JSONObject, at root: JSONPointer, base: String, limits: DocumentLimits, definitionLimits: DefinitionLimits
    ) throws(ViewDefinitionError) -> ViewDefinition {
        let conditions = try readConditions(body["where"], at: root.appending("where"), limits: definitionLimits)
        let sort = try readSort(body["sort"], at: root.appending("sort"), limits: definitionLimits)
        let offset = try readCount(body["offset"], named: "offset", in: 0...limits.maximumItems, at: root.appending("offset")) ?? 0
        let limitRange = min(definitionLimits.minimumLimit, limits.maximumItems)...limits.maximumItems
        let limit = try readCount(body["limit"], named: "limit", in: limitRange, at: root.appending("limit")) ?? limits.maximumItems
        let sections = try readSections(body["sections"], at: root.appending("sections"), limits: definitionLimits)
        return ViewDefinition(base: base, conditions: conditions, sort: sort, offset: offset, limit: limit, sections: sections)
    }

    /// The canonical definition: `{"of", "where", "sort", "offset", "limit", "sections"}`, every member present (defaults
    /// filled in; `sections` as `"keep"`, `"none"` or `{"by": "/pointer"}`, each sort key with its `order`).
    /// Reading it back gives an equal definition.
    /// - Complexity: O(*n*) in the size of the definition.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object.appendUnchecked("of", .string(base))
        object.appendUnchecked("where", .array(conditions.map(\.jsonValue)))
        object.appendUnchecked("sort", .array(sort.map { $0.jsonValue(withDefaultOrder: true) }))
        object.appendUnchecked("offset", .number(JSONNumber(offset)))
        object.appendUnchecked("limit", .number(JSONNumber(limit)))
        object.appendUnchecked("sections", sections.jsonValue)
        return .object(object)
    }

    // MARK: - Members

    private static func readPath(_ value: JSONValue?, at pointer: JSONPointer, limits: DefinitionLimits) throws(ViewDefinitionError) -> JSONPointer {
        guard case .string(let text)? = value else { throw ViewDefinitionError(ViewPath.rule, at: pointer) }
        guard text.utf8.count <= limits.maximumValueBytes else {
            throw ViewDefinitionError("a path may have at most \(limits.maximumValueBytes) bytes", at: pointer)
        }
        guard let path = ViewPath.parse(text) else { throw ViewDefinitionError(ViewPath.rule, at: pointer) }
        return path
    }

    /// Checks a condition's operand against the size bounds: its compact JSON (for `in`, each element's) within
    /// `maximumValueBytes`, and an `in` array within `maximumInValues`.
    private static func checkOperand(_ operand: JSONValue, of op: ViewOperator, at pointer: JSONPointer, limits: DefinitionLimits) throws(ViewDefinitionError) {
        let bytes = limits.maximumValueBytes
        if op == .in, case .array(let elements) = operand {
            guard elements.count <= limits.maximumInValues else {
                throw ViewDefinitionError("an in array may have at most \(limits.maximumInValues) values", at: pointer)
            }
            for (index, element) in elements.enumerated() where element.compactJSONLength(upTo: bytes) == nil {
                throw ViewDefinitionError("a value may have at most \(bytes) bytes of JSON", at: pointer.appending(index))
            }
        } else if operand.compactJSONLength(upTo: bytes) == nil {
            throw ViewDefinitionError("a value may have at most \(bytes) bytes of JSON", at: pointer)
        }
    }

    private static func checkMembers(of object: JSONObject, allowed: [String], at pointer: JSONPointer) throws(ViewDefinitionError) {
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            throw ViewDefinitionError("unknown member \"\(unknown)\" (allowed: \(allowed.joined(separator: ", ")))", at: pointer.appending(unknown))
        }
    }

    private static func readConditions(_ value: JSONValue?, at pointer: JSONPointer, limits: DefinitionLimits) throws(ViewDefinitionError) -> [ViewCondition] {
        guard let value else { return [] }
        guard case .array(let elements) = value else { throw ViewDefinitionError("where must be an array of conditions", at: pointer) }
        guard elements.count <= limits.maximumConditions else {
            throw ViewDefinitionError("where may have at most \(limits.maximumConditions) conditions", at: pointer.appending(limits.maximumConditions))
        }
        var conditions: [ViewCondition] = []
        for (index, element) in elements.enumerated() {
            let here = pointer.appending(index)
            guard case .object(let object) = element else {
                throw ViewDefinitionError("a condition must be an object {\"path\", \"op\", \"value\"}", at: here)
            }
            try checkMembers(of: object, allowed: ["path", "op", "value"], at: here)
            let path = try readPath(object["path"], at: here.appending("path"), limits: limits)
            let names = ViewOperator.allCases.map(\.rawValue).joined(separator: ", ")
            guard case .string(let name)? = object["op"], let op = ViewOperator(rawValue: name) else {
                throw ViewDefinitionError("op must be one of \(names)", at: here.appending("op"))
            }
            guard let operand = object["value"] else {
                throw ViewDefinitionError("a condition needs a value", at: here.appending("value"))
            }
            let fits: Bool
            let expected: String
            switch op {
            case .eq, .ne, .contains: (fits, expected) = (true, "")
            case .lt, .lte, .gt, .gte:
                switch operand {
                case .number, .string: fits = true
                default: fits = false
                }
                expected = "a number or a string"
            case .in: (fits, expected) = (operand.arrayValue != nil, "an array")
            case .prefix: (fits, expected) = (operand.stringValue != nil, "a string")
            case .exists:
                if case .bool = operand { fits = true } else { fits = false }
                expected = "true or false"
            }
            guard fits else {
                throw ViewDefinitionError("the value of \(op.rawValue) must be \(expected), not \(operand.typeName)", at: here.appending("value"))
            }
            try checkOperand(operand, of: op, at: here.appending("value"), limits: limits)
            conditions.append(ViewCondition(path: path, op: op, value: operand))
        }
        return conditions
    }

    private static func readSort(_ value: JSONValue?, at pointer: JSONPointer, limits: DefinitionLimits) throws(ViewDefinitionError) -> [ViewSortKey] {
        guard let value else { return [] }
        guard case .array(let elements) = value else { throw ViewDefinitionError("sort must be an array of keys", at: pointer) }
        guard elements.count <= limits.maximumSortKeys else {
            throw ViewDefinitionError("sort may have at most \(limits.maximumSortKeys) keys", at: pointer.appending(limits.maximumSortKeys))
        }
        var keys: [ViewSortKey] = []
        for (index, element) in elements.enumerated() {
            let here = pointer.appending(index)
            guard case .object(let object) = element else {
                throw ViewDefinitionError("a sort key must be an object {\"path\", \"order\"}", at: here)
            }
            try checkMembers(of: object, allowed: ["path", "order"], at: here)
            let path = try readPath(object["path"], at: here.appending("path"), limits: limits)
            let descending: Bool
            switch object["order"] {
            case nil, .string("asc")?: descending = false
            case .string("desc")?: descending = true
            default: throw ViewDefinitionError("order must be \"asc\" or \"desc\"", at: here.appending("order"))
            }
            keys.append(ViewSortKey(path: path, descending: descending))
        }
        return keys
    }

    /// An integer member within `range` (`offset`, `limit`); `nil` when absent.
    private static func readCount(
        _ value: JSONValue?, named name: String, in range: ClosedRange<Int>, at pointer: JSONPointer
    ) throws(ViewDefinitionError) -> Int? {
        guard let value else { return nil }
        guard case .number(let number) = value, let count = number.intValue, Double(count) == number.value, range.contains(count)
        else {
            throw ViewDefinitionError("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)", at: pointer)
        }
        return count
    }

    private static func readSections(_ value: JSONValue?, at pointer: JSONPointer, limits: DefinitionLimits) throws(ViewDefinitionError) -> ViewSections {
        switch value {
        case nil, .string("keep")?: return .keep
        case .string("none")?: return .none
        case .object(let object)?:
            try checkMembers(of: object, allowed: ["by"], at: pointer)
            return .by(try readPath(object["by"], at: pointer.appending("by"), limits: limits))
        default:
            throw ViewDefinitionError("sections must be \"keep\", \"none\" or {\"by\": \"<pointer>\"}", at: pointer)
        }
    }
}

extension ViewCondition {
    /// `{"path", "op", "value"}`, as a definition reads it.
    var jsonValue: JSONValue {
        var member = JSONObject()
        member.appendUnchecked("path", .string(path.description))
        member.appendUnchecked("op", .string(op.rawValue))
        member.appendUnchecked("value", value)
        return .object(member)
    }
}

extension ViewSortKey {
    /// `{"path", "order"}`; without `order` when it is `asc` and `withDefaultOrder` is `false`.
    func jsonValue(withDefaultOrder: Bool) -> JSONValue {
        var member = JSONObject()
        member.appendUnchecked("path", .string(path.description))
        if descending || withDefaultOrder { member.appendUnchecked("order", .string(descending ? "desc" : "asc")) }
        return .object(member)
    }
}

extension ViewSections {
    /// `"keep"`, `"none"` or `{"by": "<pointer>"}`.
    var jsonValue: JSONValue {
        switch self {
        case .keep: return "keep"
        case .none: return "none"
        case .by(let pointer):
            var by = JSONObject()
            by.appendUnchecked("by", .string(pointer.description))
            return .object(by)
        }
    }
}
