import ListDeltaEngine
import ListDeltaStorage

/// Where a followed list stands against the revision a client holds: the one decision a many-lists stream and a
/// many-lists poll make for every list they follow.
enum ListProgress: Sendable {
    /// The client holds the current revision (or 0 of a list that does not exist).
    case current
    /// The client holds an older revision that is served: it gets the diff from it to `list`.
    case behind(LiveList)
    /// The client cannot be answered with a diff (the list was deleted, or its revision is pruned, from an earlier
    /// incarnation or ahead of the list): it refetches `current`, 0 for a list that does not exist.
    case reset(current: Int)

    /// The progress of `id` for a client holding `held`.
    ///
    /// Reads the head from memory when it is there, else the store (so on a worker).
    /// - Throws: a storage failure.
    static func of(_ id: String, held: Int, in repository: ListRepository) throws(ServiceError) -> ListProgress {
        guard let head = try ServiceError.mapping { () throws(EngineError) in try repository.head(id, atLeast: held) }, !head.isDeleted else { return held == 0 ? .current : .reset(current: 0) }
        if held == head.revision { return .current }
        guard held < head.revision, repository.isServable(held, head: head) else { return .reset(current: head.revision) }
        do {
            return .behind(try ServiceError.mapping { () throws(EngineError) in try repository.live(id, atLeast: head.revision) })
        } catch {
            // Deleted since its head was read.
            guard case .notFound = error else { throw error }
            return .reset(current: 0)
        }
    }
}
