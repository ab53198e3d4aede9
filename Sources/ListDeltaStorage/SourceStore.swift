/// A list's source as stored: its settings and its state (JSON text the service writes and reads; the store keeps
/// them opaque), its schedule, and the lease of the instance that fetches it.
public struct StoredSource: Sendable, Equatable {
    /// The list the source feeds.
    public var list: String
    /// The settings (url, interval, sections, maxItems), as JSON text.
    public var settings: String
    /// The state after the last fetch (and what the next fetch needs, such as validators), as JSON text.
    public var state: String
    /// Raised by every attach or change: a fetch of an older generation records nothing.
    public var generation: Int
    /// When the source is due, in milliseconds since 1970.
    public var nextFetchAtMilliseconds: Int64
    /// `true` when the last fetch failed (counted by ``SourceCounts/failing``).
    public var isFailing: Bool

    public init(list: String, settings: String, state: String, generation: Int, nextFetchAtMilliseconds: Int64, isFailing: Bool) {
        self.list = list
        self.settings = settings
        self.state = state
        self.generation = generation
        self.nextFetchAtMilliseconds = nextFetchAtMilliseconds
        self.isFailing = isFailing
    }
}

/// How many sources are attached, and how many of them failed their last fetch.
public struct SourceCounts: Sendable, Equatable {
    public var attached: Int
    public var failing: Int

    public init(attached: Int, failing: Int) {
        self.attached = attached
        self.failing = failing
    }
}

/// Where sources are kept, and who fetches each: a lease, taken in the store, lets exactly one instance at a time
/// fetch a source, however many instances share the store.
///
/// A lease is taken by ``claimDueSources(owner:nowMilliseconds:leaseMilliseconds:limit:)`` (or by an attach, which fetches at once) and
/// given back by ``finishSourceFetch(list:generation:owner:state:isFailing:nextFetchAtMilliseconds:)``; one whose holder died
/// lapses after its duration, and another instance takes the source over.
public protocol SourceStore: Sendable {
    /// The source of `list`, if one is attached.
    func source(_ list: String) throws(StoreError) -> StoredSource?

    /// Attaches a source to `list` or changes it: new settings and state, a new generation, due now, leased to
    /// `owner` for `leaseMilliseconds` (the caller fetches at once).
    /// - Returns: `true` when it was attached (none was before), `false` when it replaced one.
    /// - Throws: ``StoreError/limitReached(_:)`` when attaching would exceed `maximumSources`.
    func attachSource(
        list: String, settings: String, state: String, owner: String, nowMilliseconds: Int64, leaseMilliseconds: Int64, maximumSources: Int
    ) throws(StoreError) -> (created: Bool, source: StoredSource)

    /// Detaches the source of `list`. `false` when there was none.
    func detachSource(_ list: String) throws(StoreError) -> Bool

    /// Takes the lease on up to `limit` due sources no one else holds (or whose lease lapsed), the most overdue
    /// first.
    func claimDueSources(owner: String, nowMilliseconds: Int64, leaseMilliseconds: Int64, limit: Int) throws(StoreError) -> [StoredSource]

    /// Records a fetch's outcome and gives the lease back, provided `owner` still holds the lease on that
    /// `generation` of the source. `false` (nothing recorded) when the source was detached, changed or taken over.
    func finishSourceFetch(
        list: String, generation: Int, owner: String, state: String, isFailing: Bool, nextFetchAtMilliseconds: Int64
    ) throws(StoreError) -> Bool

    /// Whether `owner` still holds the lease on that `generation` of `list`'s source: a fetch asks before it writes
    /// the list, so that one whose source was changed, detached or taken over writes nothing.
    func holdsSourceLease(list: String, generation: Int, owner: String) throws(StoreError) -> Bool

    /// Counts the attached and the failing sources.
    func sourceCounts() throws(StoreError) -> SourceCounts
}
