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

    /// A result and the base revisions known to have it.
    private struct Span {
        /// The oldest base revision known to have `result` (the entry's first revision when made there).
        var since: Int
        /// The newest.
        var until: Int
        var result: ListDocument
    }

    private struct State {
        /// Out while the updater works on it.
        var index: ViewIndex?
        /// The current result, up to the base revision the index stands at, then the results before it, newest
        /// first: a poll woken by a change reads the result it held from here, not by evaluating again.
        var spans: [Span]

        func result(at revision: Int) -> ListDocument? {
            guard let span = spans.first(where: { $0.since <= revision && revision <= $0.until }) else { return nil }
            var result = span.result
            result.revision = revision
            return result
        }
    }

    /// How many earlier results an entry keeps besides the current one.
    private static let earlierResults = 3

    private let state: Mutex<State>

    /// Builds the query's index over `base` (the base's document at `revision`, `nil` when it has none).
    /// - Complexity: O(*n* log *n*) for *n* base items.
    init(query: LiveQuery, key: String, base: ViewBase, revision: Int, limits: DocumentLimits) {
        self.query = query
        self.key = key
        let index = ViewIndex(definition: query.definition, base: base, limits: limits)
        let result = index.document(viewID: query.definition.base, revision: revision)
        state = Mutex(State(index: index, spans: [Span(since: revision, until: revision, result: result)]))
    }

    /// The base revision the entry stands at.
    var revision: Int { state.withLock { $0.spans[0].until } }

    /// The result at base revision `revision`, when the entry knows it (the current result, or one of the few
    /// before it, over a range of revisions that holds `revision`); its `revision` member is `revision`.
    /// - Complexity: O(1).
    func result(at revision: Int) -> ListDocument? {
        state.withLock { $0.result(at: revision) }
    }

    /// Brings the entry to `base` at `revision`, incrementally when it stands at `previous` and `diff` is the
    /// base's change from there, else by a rebuild.
    /// - Returns: Whether the result changed (a change that leaves the result equal is no change).
    /// - Complexity: that of ``ViewIndex/update(to:diff:)`` (a rebuild: O(*n* log *n*)), plus O(*v*) for *v* shown
    ///   items to compare the results when the index cannot rule a change out.
    func advance(to base: ViewBase, revision: Int, previous: Int?, diff: ListDiff?) -> Bool {
        // Taken out of the state, and held by one variable only: shared, its chunks would be copied on every change.
        var taken: ViewIndex?
        var standing = 0
        state.withLock { state in
            guard state.spans[0].until < revision, state.index != nil else { return }
            swap(&taken, &state.index)
            standing = state.spans[0].until
        }
        guard var index = taken else { return false }
        taken = nil
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
            guard let fresh, !fresh.hasSameContent(as: state.spans[0].result) else {
                state.spans[0].until = standing
                return false
            }
            state.spans.insert(Span(since: standing, until: standing, result: fresh), at: 0)
            if state.spans.count > 1 + Self.earlierResults { state.spans.removeLast() }
            return true
        }
    }
}
