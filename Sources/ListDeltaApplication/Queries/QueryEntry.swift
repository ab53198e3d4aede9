import ListDeltaCore
import Synchronization

/// One followed query as this instance keeps it: its incremental index over the base, and its result at the newest
/// base revision the index has read, with the oldest revision since which that result has not changed.
///
/// Readers (polls, streams) only read ``result(at:)``; only the query's base updater (one at a time per base, see
/// ``QueryUpdater``) moves it forward.
final class QueryEntry: Sendable {
    /// The query.
    let query: LiveQuery
    /// Its key in the hub and in the caches: the base's id, a NUL, the canonical JSON (a list id has no NUL, so no
    /// key of a query is a list's).
    let key: String

    private struct State {
        /// Out while the updater works on it.
        var index: ViewIndex?
        /// The base revision the index and `result` stand at.
        var revision: Int
        /// The oldest base revision known to have `result` (`revision` when the entry was made there).
        var since: Int
        var result: ListDocument
    }

    private let state: Mutex<State>

    /// Builds the query's index over `base` (the base's document at `revision`, `nil` when it has none).
    /// - Complexity: O(*n* log *n*) for *n* base items.
    init(query: LiveQuery, key: String, base: ViewBase, revision: Int, limits: DocumentLimits) {
        self.query = query
        self.key = key
        let index = ViewIndex(definition: query.definition, base: base, limits: limits)
        let result = index.document(viewID: query.definition.base, revision: revision)
        state = Mutex(State(index: index, revision: revision, since: revision, result: result))
    }

    /// The base revision the entry stands at.
    var revision: Int { state.withLock { $0.revision } }

    /// The result at base revision `revision`, when the entry knows it (the result has not changed between
    /// `revision` and the entry's revision); its `revision` member is `revision`.
    /// - Complexity: O(1).
    func result(at revision: Int) -> ListDocument? {
        state.withLock { state in
            guard state.since <= revision, revision <= state.revision else { return nil }
            var result = state.result
            result.revision = revision
            return result
        }
    }

    /// Brings the entry to `base` at `revision`, incrementally when it stands at `previous` and `diff` is the
    /// base's change from there, else by a rebuild.
    /// - Returns: Whether the result changed (a change that leaves the result equal is no change).
    /// - Complexity: that of ``ViewIndex/update(to:diff:)`` (a rebuild: O(*n* log *n*)), plus O(*v*) for *v* shown
    ///   items to compare the results when the index cannot rule a change out.
    func advance(to base: ViewBase, revision: Int, previous: Int?, diff: ListDiff?) -> Bool {
        let taken = state.withLock { state -> (ViewIndex, Int)? in
            guard state.revision < revision, let index = state.index else { return nil }
            state.index = nil
            return (index, state.revision)
        }
        guard var (index, standing) = taken else { return false }
        let mayHaveChanged: Bool
        if standing == previous, let diff {
            mayHaveChanged = index.update(to: base, diff: diff)
        } else {
            index = ViewIndex(definition: query.definition, base: base, limits: index.limits)
            mayHaveChanged = true
        }
        let fresh = mayHaveChanged ? index.document(viewID: query.definition.base, revision: revision) : nil
        standing = revision
        return state.withLock { state in
            state.index = index
            state.revision = standing
            guard let fresh, !fresh.hasSameContent(as: state.result) else { return false }
            state.result = fresh
            state.since = standing
            return true
        }
    }
}
