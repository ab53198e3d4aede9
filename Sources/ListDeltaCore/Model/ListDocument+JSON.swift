extension ListDocument {
    /// Reads a document as served (`jsonValue`'s form), for clients, tests and stored snapshots.
    ///
    /// Writes go through `DataProviderFactory`, which validates; this reader trusts the rules and only checks
    /// the shape.
    /// - Throws: `DiffApplicationError` naming the member that does not fit.
    public init(servedJSON json: JSONValue) throws(DiffApplicationError) {
        let object = try DiffJSON.object(json, "document")
        self.init(
            id: try DiffJSON.string(object["id"], "id"),
            kind: try Self.kind(servedJSON: object["kind"]),
            revision: try DiffJSON.int(object["revision"], "revision"),
            cells: try Self.cells(servedJSON: object["cells"]),
            sections: try DiffJSON.array(object["sections"], "sections").map { value throws(DiffApplicationError) in
                try DiffJSON.section(value)
            }
        )
    }
}

extension ListDocument {
    /// Reads a served `kind` member.
    /// - Throws: `DiffApplicationError` unless it is `"array"` or `"sections"`.
    public static func kind(servedJSON value: JSONValue?) throws(DiffApplicationError) -> ListKind {
        guard let kind = ListKind(rawValue: try DiffJSON.string(value, "kind")) else {
            throw DiffApplicationError("kind must be array or sections")
        }
        return kind
    }

    /// Reads a served `cells` member: `nil` when absent or null, else the registry.
    /// - Throws: `DiffApplicationError` when it is not an object of strings.
    public static func cells(servedJSON value: JSONValue?) throws(DiffApplicationError) -> [String: String]? {
        guard let value, !value.isNull else { return nil }
        let registry = try DiffJSON.object(value, "cells")
        var table: [String: String] = [:]
        for (type, cell) in registry.entries { table[type] = try DiffJSON.string(cell, "cells.\(type)") }
        return table
    }
}

extension ListItem {
    /// Reads an item as served (`jsonValue`'s form: `{"id", "type"?, "cell", "model"}`), for clients and stored
    /// snapshots; it checks the shape, not the write rules.
    /// - Throws: `DiffApplicationError` naming the member that does not fit.
    public init(servedJSON json: JSONValue) throws(DiffApplicationError) {
        self = try DiffJSON.item(json)
    }
}
