extension ListDocument {
    /// Reads a document as served (`jsonValue`'s form), for clients, tests and stored snapshots.
    ///
    /// Writes go through `DataProviderFactory`, which validates; this reader trusts the rules and only checks
    /// the shape.
    /// - Throws: `DiffApplicationError` naming the member that does not fit.
    public init(servedJSON json: JSONValue) throws(DiffApplicationError) {
        let object = try DiffJSON.object(json, "document")
        guard let kind = ListKind(rawValue: try DiffJSON.string(object["kind"], "kind")) else {
            throw DiffApplicationError("kind must be array or sections")
        }
        var cells: [String: String]?
        if case .object(let registry)? = object["cells"] {
            var table: [String: String] = [:]
            for (type, cell) in registry.entries { table[type] = try DiffJSON.string(cell, "cells.\(type)") }
            cells = table
        }
        self.init(
            id: try DiffJSON.string(object["id"], "id"),
            kind: kind,
            revision: try DiffJSON.int(object["revision"], "revision"),
            cells: cells,
            sections: try DiffJSON.array(object["sections"], "sections").map { value throws(DiffApplicationError) in
                try DiffJSON.section(value)
            }
        )
    }
}
