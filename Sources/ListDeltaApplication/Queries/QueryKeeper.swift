public import ListDeltaCore
public import ListDeltaEngine
public import ListDeltaStorage
import Logging
import Metrics
import Synchronization

/// The live queries this instance keeps (API.md, "Live queries"): each distinct query that a held poll or an open
/// stream follows, kept once and shared by all its followers, up to date with its base through its incremental
/// index, updated once per base write on the query pool, never on a loop and never once per client.
///
/// - **Followers** ``hold(_:)`` a query while a poll is parked or a stream is open, and ``release(_:)`` it after.
///   At most `maximumQueries` distinct queries are held at once; one more is refused (503). A query nobody holds
///   is kept a while (a poll's next request comes soon) and dropped by ``sweep()`` after ``idleSeconds``, or at
///   once when the idle ones outnumber the held bound.
/// - **Wakes**: after a write of the base (this instance's through ``Application/afterCommit(_:)``, another's
///   through its announcement), the base's updater advances every query of the base and publishes to the hub,
///   under the query's ``hubKey(of:)``, only for those whose result changed.
/// - **Results at any revision**: ``result(of:at:head:)`` answers from the kept query when its result is known
///   there, else evaluates the query over that revision's document (the repository's caches), keeping the
///   result in a bounded cache.
public final class QueryKeeper: Sendable {
    /// The most queries held at once by default.
    public static let defaultMaximumQueries = 10_000
    /// How long a query nobody holds is kept, in seconds.
    public static let idleSeconds = 60.0

    private struct Kept {
        let entry: QueryEntry
        var holders = 0
        var idleSince: ContinuousClock.Instant
    }

    private struct State {
        var byBase: [String: [LiveQuery: Kept]] = [:]
        var held = 0
        var idle = 0
    }

    /// The state behind a reference the base updaters share.
    private final class Registry: Sendable {
        let state = Mutex(State())
        /// For each base with an update due, when the first write since its last update was told.
        let dueSince = Mutex<[String: ContinuousClock.Instant]>([:])
        let bases = SharedBases()
    }

    private weak let app: Application?
    private let repository: ListRepository
    private let hub: ChangeHub
    /// The most queries held at once.
    public let maximumQueries: Int
    private let registry = Registry()
    private let results: LRUCache<RevisionKey, ListDocument>
    private let scheduler: BaseScheduler<QueryUpdater>

    init(app: Application, maximumQueries: Int, resultBytes: Int) {
        self.app = app
        repository = app.repository
        hub = app.hub
        self.maximumQueries = maximumQueries
        results = LRUCache(budget: resultBytes)
        let pool = app.pools.query
        let repository = app.repository
        let hub = app.hub
        let logger = app.logger
        let registry = registry
        scheduler = BaseScheduler(execute: { job in pool.execute(job) }, make: QueryUpdater.init(base:)) { updater, hint in
            let started = ContinuousClock.now
            let since = registry.dueSince.withLock { $0.removeValue(forKey: updater.base) } ?? started
            let entries = registry.state.withLock { state in (state.byBase[updater.base] ?? [:]).values.map(\.entry) }
            let before = updater.revision
            defer {
                // Timed only when the base had moved (the runs a new query asks for find it where it was).
                if updater.revision != before { Timer(label: "listdelta_query_update_seconds").record(duration: ContinuousClock.now - started) }
            }
            do {
                // Each changed query's followers are woken as soon as it is updated, not after the others.
                let changed = try updater.update(entries, hint: hint, repository: repository, bases: registry.bases) { entry in
                    hub.publish(list: entry.key, .committedElsewhere(revision: entry.revision))
                    Timer(label: "listdelta_query_wake_seconds").record(duration: ContinuousClock.now - since)
                }
                Counter(label: "listdelta_query_updates_total").increment(by: Int64(entries.count))
                Counter(label: "listdelta_query_wakes_total").increment(by: Int64(changed))
            } catch {
                logger.warning("the queries of a base could not be updated", metadata: ["base": "\(updater.base)", "error": "\(error)"])
            }
        }
    }

    /// The hub key and cache key of `query`: its base's id, a NUL, its canonical JSON. No list has that id.
    public static func hubKey(of query: LiveQuery) -> String {
        query.definition.base + "\u{0}" + query.canonicalJSON
    }

    // MARK: - Followers

    /// A query held by a follower: release it once, when the poll is answered or the stream ends.
    public struct Hold: Sendable {
        /// The query.
        public let query: LiveQuery
        /// Where its wakes are published (``ChangeHub``).
        public let hubKey: String
    }

    /// Holds `query` for a follower, building its index over the base's current head when nobody held it.
    /// - Throws: ``EngineError/unavailable(_:)`` when `maximumQueries` are held and this one is not;
    ///   ``EngineError`` when the base cannot be read.
    /// - Complexity: O(1) when kept; else O(*n* log *n*) for *n* base items to build its index.
    public func hold(_ query: LiveQuery) throws(EngineError) -> Hold {
        let base = query.definition.base
        let hold = Hold(query: query, hubKey: Self.hubKey(of: query))
        if try holdKept(query) {
            recordGauges()
            return hold
        }
        let head = try repository.head(base)
        let live = head.flatMap { $0.isDeleted ? nil : $0 }
        let document = try live.map { head throws(EngineError) in try repository.document(base, revision: head.revision, head: head) }
        // One ViewBase per base revision for every query over it: its position map is built once, not per query.
        let shared = registry.bases.base(base, revision: live?.revision ?? 0) { ViewBase(document) }
        let entry = QueryEntry(query: query, key: hold.hubKey, base: shared, revision: live?.revision ?? 0, limits: repository.documentLimits)
        try registry.state.withLock { state throws(EngineError) in
            if var kept = state.byBase[base]?[query] {
                if kept.holders == 0 { try admitOneMore(&state) }
                kept.holders += 1
                state.byBase[base]?[query] = kept
                return
            }
            try admitOneMore(&state)
            state.byBase[base, default: [:]][query] = Kept(entry: entry, holders: 1, idleSince: .now)
        }
        recordGauges()
        // A base write between the head read above and the entry's insertion found no entry to advance.
        scheduler.schedule(base, outcome: nil)
        return hold
    }

    /// Holds a kept query; `false` when it is not kept.
    private func holdKept(_ query: LiveQuery) throws(EngineError) -> Bool {
        try registry.state.withLock { state throws(EngineError) -> Bool in
            guard var kept = state.byBase[query.definition.base]?[query] else { return false }
            if kept.holders == 0 {
                try admitOneMore(&state)
                state.idle -= 1
            }
            kept.holders += 1
            state.byBase[query.definition.base]?[query] = kept
            return true
        }
    }

    /// Counts one more held query, or refuses it past the bound.
    private func admitOneMore(_ state: inout State) throws(EngineError) {
        guard state.held < maximumQueries else {
            Counter(label: "listdelta_queries_refused_total").increment()
            throw .unavailable("this instance follows its most live queries (\(maximumQueries)); retry shortly")
        }
        state.held += 1
    }

    /// Ends one follower's hold. A query nobody holds any more is kept idle, for a while.
    public func release(_ hold: Hold) {
        let base = hold.query.definition.base
        let dropIdle = registry.state.withLock { state -> Bool in
            guard var kept = state.byBase[base]?[hold.query], kept.holders > 0 else { return false }
            kept.holders -= 1
            if kept.holders == 0 {
                kept.idleSince = .now
                state.held -= 1
                state.idle += 1
            }
            state.byBase[base]?[hold.query] = kept
            return state.idle > maximumQueries
        }
        if dropIdle { sweep(olderThan: .zero) } else { recordGauges() }
    }

    /// Drops the queries nobody has held for ``idleSeconds``.
    public func sweep() {
        sweep(olderThan: .seconds(Self.idleSeconds))
    }

    private func sweep(olderThan age: Duration) {
        let now = ContinuousClock.now
        let bases = registry.state.withLock { state -> Set<String> in
            for (base, queries) in state.byBase {
                for (query, kept) in queries where kept.holders == 0 && now - kept.idleSince >= age {
                    state.byBase[base]?[query] = nil
                    state.idle -= 1
                }
                if state.byBase[base]?.isEmpty == true { state.byBase[base] = nil }
            }
            return Set(state.byBase.keys)
        }
        registry.bases.retain(only: bases)
        scheduler.retain(only: bases)
        recordGauges()
    }

    /// The queries kept (held or idle) and those held.
    public var counts: (kept: Int, held: Int) {
        registry.state.withLock { ($0.held + $0.idle, $0.held) }
    }

    /// `listdelta_queries_kept` (held or idle) and `listdelta_queries_held`.
    private func recordGauges() {
        let (kept, held) = counts
        Gauge(label: "listdelta_queries_kept").record(kept)
        Gauge(label: "listdelta_queries_held").record(held)
    }

    // MARK: - Results

    /// The result of `query` at base revision `revision` (0: the empty list) of the base whose head is `head`: from
    /// the kept query when it knows it, else evaluated over that revision's document and cached. The whole list's
    /// (`{}`) is the base's document.
    /// - Throws: ``EngineError`` when the revision cannot be read.
    /// - Complexity: O(1) when kept or cached; else the document's read plus O(*n* log *n*) for *n* base items.
    public func result(of query: LiveQuery, at revision: Int, head: ListHead?) throws(EngineError) -> ListDocument {
        let base = query.definition.base
        // Revision 0 is the empty list, for every query (a client that holds nothing yet).
        if revision == 0 { return .empty(id: base) }
        if let entry = registry.state.withLock({ $0.byBase[base]?[query]?.entry }), let result = entry.result(at: revision) {
            return result
        }
        let key = RevisionKey(list: Self.hubKey(of: query), revision: revision)
        if let cached = results.value(for: key) { return cached }
        let document: ListDocument?
        if let head, !head.isDeleted {
            document = try repository.document(base, revision: revision, head: head)
        } else {
            throw .notFound("there is no list \"\(base)\"")
        }
        // The whole list's result is the base's document itself (a view of it may leave out empty sections).
        if query.isWholeList { return document ?? .empty(id: base) }
        let result = query.result(over: document, revision: revision, limits: repository.documentLimits)
        results.set(result, for: key, cost: result.estimatedHeapBytes)
        return result
    }

    // MARK: - Base changes

    /// Schedules an update of the queries over `base` after it changed (`outcome`: this instance's write).
    func baseChanged(_ base: String, outcome: WriteOutcome?) {
        guard registry.state.withLock({ $0.byBase[base] != nil }) else { return }
        let now = ContinuousClock.now
        registry.dueSince.withLock { $0[base] = $0[base] ?? now }
        scheduler.schedule(base, outcome: outcome)
    }

    /// Schedules an update of every base with queries (after the announcements of other instances resumed).
    func everyBaseChanged() {
        for base in registry.state.withLock({ Array($0.byBase.keys) }) { scheduler.schedule(base, outcome: nil) }
    }

    /// Tells the followers of every query over `base` that it was deleted, and drops those queries: a base created
    /// again numbers its revisions anew, so its queries are built again when followed.
    func baseDeleted(_ base: String) {
        registry.bases.forget(base)
        let keys = registry.state.withLock { state -> [String] in
            let queries = state.byBase.removeValue(forKey: base) ?? [:]
            for kept in queries.values {
                if kept.holders > 0 { state.held -= 1 } else { state.idle -= 1 }
            }
            return queries.values.map(\.entry.key)
        }
        for key in keys { hub.publish(list: key, .deleted) }
        results.removeAll { $0.list.hasPrefix(base + "\u{0}") }
    }

    // MARK: - Sweeps

    /// Starts the sweeps of idle queries: one every ``idleSeconds`` / 4.
    func start() {
        app?.after(Self.idleSeconds / 4) { [weak self] in
            guard let self, let app else { return }
            app.pools.query.execute { [self] in
                sweep()
                start()
            }
        }
    }
}
