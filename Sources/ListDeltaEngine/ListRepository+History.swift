public import ListDeltaStorage

extension ListRepository {
    /// A page of the history of the live list `id` (404 when there is none), from stored summaries only.
    public func history(_ id: String, before: Int?, limit: Int) throws(EngineError) -> HistoryPage {
        loopCheck.refuse("reading a history")
        guard mightExist(id) else { throw .notFound("there is no list \"\(id)\"") }
        let page: HistoryPage?
        do {
            page = try CommitTracing.storeCall("history", list: id, system: store.databaseSystem) { () throws(StoreError) in
                try store.history(id, before: before, limit: limit)
            }
        } catch {
            throw EngineError.from(error)
        }
        guard let page else { throw .notFound("there is no list \"\(id)\"") }
        return page
    }

    /// Live lists in id order, after `after`, at most `limit`, and whether more follow.
    public func lists(after: String?, limit: Int) throws(EngineError) -> (lists: [ListHead], more: Bool) {
        loopCheck.refuse("listing lists")
        do {
            let page = try store.lists(after: after, limit: limit + 1)
            return (Array(page.prefix(limit)), page.count > limit)
        } catch {
            throw EngineError.from(error)
        }
    }
}
