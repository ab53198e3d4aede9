public import ListDeltaStorage

extension ListRepository {
    /// Deletes `id`; returns its last head.
    public func delete(_ id: String, preconditions: WritePreconditions, onCommit: () -> Void) throws(EngineError) -> ListHead {
        loopCheck.refuse("a delete")
        return try locks.withLock(id) { () throws(EngineError) in try deleteHoldingLock(id, preconditions: preconditions, onCommit: onCommit) }
    }

    func deleteHoldingLock(_ id: String, preconditions: WritePreconditions, onCommit: () -> Void) throws(EngineError) -> ListHead {
        let current = store.isShared ? try storedHead(id) : try head(id)
        guard let head = current, !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
        if let failure = Self.failedIfMatch(preconditions, current: head.revision) { throw failure }
        let removed: ListHead?
        do {
            // Under the list's lock: the revision just checked is still the current one (but for another
            // instance's write, which the store's own check catches).
            removed = try CommitTracing.storeCall("delete", list: id, system: store.databaseSystem) { () throws(StoreError) in
                try store.delete(id, expectedRevision: preconditions.ifMatch == nil ? nil : head.revision)
            }
            let generation = heads.generation
            if let tombstone = try store.head(id) { heads.remember(tombstone, readIn: generation) } else { heads.forget(id) }
        } catch {
            throw EngineError.from(error)
        }
        documents.removeAll { $0.list == id }
        undoDiffs.removeAll { $0.list == id }
        guard let removed else { throw .notFound("there is no list \"\(id)\"") }
        onCommit()
        return removed
    }
}
