import ListDeltaStorage

extension ServiceContext {
    /// Refuses a direct write (PUT, PATCH, revert) of a list a source feeds: 409 naming the source.
    /// - Complexity: O(1) for a list known to have no source (``unsourced``); else one lookup in the store.
    func refuseWriteIfFedBySource(_ list: String) throws(ServiceError) {
        if unsourced.contains(list) { return }
        let generation = unsourced.generation
        let source: StoredSource?
        do {
            source = try sourceStore.source(list)
        } catch {
            throw ServiceError.from(error)
        }
        guard let source else {
            unsourced.insert(list, readIn: generation)
            return
        }
        let url = SourceSettings(stored: SourceService.json(source.settings)).map { " (\($0.url))" } ?? ""
        throw .fedBySource(
            "list \"\(list)\" is fed by a source\(url): only its fetches write it; detach the source first (DELETE /v1/lists/\(list)/source)")
    }
}
