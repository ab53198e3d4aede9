import ListDeltaCore
import ListDeltaStorage

extension Application {
    /// Refuses a direct write (PUT, PATCH, revert) of a list that a source feeds (409 naming the source) or that is
    /// a view (409 naming its base).
    /// - Complexity: O(1) for a list known to be written directly only (``directlyWritten``); else two lookups in
    ///   the store.
    public func refuseDirectWrite(_ list: String) throws(ApplicationError) {
        if directlyWritten.contains(list) { return }
        let generation = directlyWritten.generation
        let source: StoredSource?
        let view: StoredView?
        do {
            source = try sourceStore.source(list)
            view = source == nil ? try viewStore.view(list) : nil
        } catch {
            throw ApplicationError.from(error)
        }
        if let source {
            let url = SourceSettings(stored: JSONValue(stored: source.settings)).map { " (\($0.url))" } ?? ""
            throw .fedElsewhere(
                "list \"\(list)\" is fed by a source\(url): only its fetches write it; detach the source first (DELETE /v1/lists/\(list)/source)")
        }
        if let view {
            throw .fedElsewhere(
                "list \"\(list)\" is a view of list \"\(view.base)\": it changes only with its base; write \"\(view.base)\", or detach the view first (DELETE /v1/lists/\(list)/view)")
        }
        directlyWritten.insert(list, readIn: generation)
    }
}
