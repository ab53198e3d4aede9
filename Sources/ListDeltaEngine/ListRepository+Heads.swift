import ListDeltaCore
public import ListDeltaStorage

extension ListRepository {
    // MARK: - Reading

    /// The head of a list, live or deleted, or `nil` when the id was never used.
    /// - Parameter known: A revision the caller knows exists (a client holds it). A shared store may hold newer
    ///   heads than the cache: a cached head older than `known` is read again from the store, so a revision
    ///   committed through another instance is never answered as unknown.
    public func head(_ id: String, atLeast known: Int? = nil) throws(EngineError) -> ListHead? {
        loopCheck.refuse("reading a list head")
        if let cached = heads.head(id), !store.isShared || cached.revision >= (known ?? 0) { return cached }
        guard mightExist(id) else { return nil }
        return try storedHead(id)
    }

    /// The head as the store has it now (cached unless something newer is known).
    func storedHead(_ id: String) throws(EngineError) -> ListHead? {
        let generation = heads.generation
        let loaded: ListHead?
        do {
            loaded = try CommitTracing.storeCall("head", list: id, system: store.databaseSystem) { () throws(StoreError) in try store.head(id) }
        } catch {
            throw EngineError.from(error)
        }
        if let loaded { heads.remember(loaded, readIn: generation) }
        return loaded
    }

    /// The live list `id`, or 404 (`known` as in ``head(_:atLeast:)``).
    public func live(_ id: String, atLeast known: Int? = nil) throws(EngineError) -> LiveList {
        loopCheck.refuse("reading a list")
        guard let head = try head(id, atLeast: known), !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
        return LiveList(head: head, document: try document(id, revision: head.revision, head: head))
    }

    /// `true` when `revision` can be served: 0 (the empty list) or a retained revision.
    public func isServable(_ revision: Int, head: ListHead) -> Bool {
        revision == 0 || (head.oldestRevision...head.revision).contains(revision)
    }

    /// The 410 for a revision `isServable` refuses: beyond the current one, or no longer retained.
    public func notServed(_ revision: Int, head: ListHead) -> EngineError {
        let reason = revision > head.revision ? "is not a revision of \"\(head.id)\"" : "is no longer retained (the oldest is \(head.oldestRevision))"
        return .gone(current: head.revision, detail: "revision \(revision) \(reason)")
    }
}
