import ListDeltaCore

extension ListWrite {
    /// `document` with this write applied by id: what a writer shows before the server has it. `nil` when it
    /// cannot apply (what it names is gone, a raw patch fails, an insert's id is taken) or the result would repeat an
    /// id (a write the server already applied, applied again on top).
    /// - Complexity: O(*n*) in the document (a put or a patch: the factory's validation of it).
    func applied(to document: ListDocument) -> ListDocument? {
        var sections = document.sections
        switch self {
        case .insert(var item, let placement):
            guard ResolvedPlace.locate(item.id, in: sections) == nil else { return nil }
            if item.cell == nil, let type = item.type { item.cell = document.cells?[type] }
            guard Self.place(item, placement, in: &sections) else { return nil }
        case .move(let id, let placement):
            guard let at = ResolvedPlace.locate(id, in: sections) else { return nil }
            let item = sections[at.section].items.remove(at: at.item)
            guard Self.place(item, placement, in: &sections) else { return nil }
        case .update(let id, let changes):
            guard let at = ResolvedPlace.locate(id, in: sections) else { return nil }
            sections[at.section].items[at.item] = changes.applied(to: sections[at.section].items[at.item])
        case .remove(let id):
            guard let at = ResolvedPlace.locate(id, in: sections) else { return nil }
            sections[at.section].items.remove(at: at.item)
        case .put(let body):
            return try? DataProviderFactory().makeDocument(from: body, listID: document.id, revision: document.revision)
        case .patch(let operations):
            guard let patch = try? JSONPatch(json: operations), let patched = try? patch.apply(to: document.jsonValue) else { return nil }
            return try? DataProviderFactory().makeDocument(from: patched, listID: document.id, revision: document.revision)
        }
        var next = document
        next.sections = sections
        return next
    }

    /// Puts `item` at `placement` in `sections`; `false` when the place is gone.
    private static func place(_ item: ListItem, _ placement: ListPlacement, in sections: inout [ListSection]) -> Bool {
        guard case .success(let place) = ResolvedPlace.resolve(placement, in: sections) else { return false }
        let count = sections[place.section].items.count
        sections[place.section].items.insert(item, at: place.index(among: count))
        return true
    }
}
