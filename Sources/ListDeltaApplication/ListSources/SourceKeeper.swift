import Foundation
public import ListDeltaCore
import TextFormats
import ListDeltaFeeds
import ListDeltaSources
public import ListDeltaStorage
import Logging
import Metrics
import Synchronization

/// Lists fed by sources: attaching, detaching and reading them, fetching one at once, and the scheduler that
/// fetches every due source. The lease in the store makes one instance at a time fetch a given source.
///
/// Threads: fetches (a PUT's and the scheduler's) run on the `source` pool, never on a loop or the write pool, so
/// a slow feed holds up no other request; the scheduler's tick is a timer that hands a claim to that pool.
public final class SourceKeeper: Sendable {
    let store: any SourceStore
    /// Where fetches run (a PUT's first fetch and the scheduler's).
    public let pool: WorkerPool
    /// This instance, in the lease tokens it takes (unique per process).
    let instance: String
    private let claims = Atomic<Int>(0)
    private let viewStore: any ViewStore
    private let directlyWritten: DirectlyWrittenLists
    private let logger: Logger
    private let timers: Timers
    private let cycle: SourceCycle
    private let policy: HostPolicy
    private let resolver: any AddressResolving
    private let running = Mutex(true)
    /// How often the scheduler looks for due sources, in seconds.
    static let tickSeconds = 0.5

    /// How sources are fetched.
    private let options: SourceOptions

    init(app: Application, resolver: any AddressResolving = SystemAddressResolver()) throws(ApplicationError) {
        let options = app.options.sources
        self.options = options
        self.store = app.sourceStore
        viewStore = app.viewStore
        directlyWritten = app.directlyWritten
        logger = app.logger
        timers = app.timers
        self.resolver = resolver
        do {
            policy = try HostPolicy(patterns: options.hosts)
        } catch {
            throw .invalidOptions(error.description)
        }
        instance = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        pool = WorkerPool(name: "source", threads: options.concurrentFetches, queueLimit: options.concurrentFetches * 4)
        let limits = FetchLimits(maximumBytes: options.maximumBytes, timeoutSeconds: options.timeoutSeconds)
        let webFetcher = HTTPSourceFetcher(limits: limits, policy: policy, resolver: resolver, userAgent: "ListDelta")
        cycle = SourceCycle(
            fetcher: LocationFetcher(web: webFetcher, file: FileSourceFetcher(limits: limits)),
            parser: FeedParser(limits: FeedLimits(maximumEntries: options.maximumItems)),
            writer: RepositorySourceWriter(app: app), fileDirectory: options.fileDirectory, schedule: RetrySchedule(),
            maximumDepth: app.options.maximumDepth, clock: { Int64(Date().timeIntervalSince1970 * 1_000) }, random: { Double.random(in: 0..<1) })
    }

    /// How long a lease lasts: well past the longest fetch, so that only a dead holder loses it.
    var leaseMilliseconds: Int64 { Int64(options.timeoutSeconds * 2_000) + 30_000 }

    private var now: Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    /// A lease token of its own for each claim and each attach: a fetch of this instance that outlived its lease
    /// and a newer fetch of the same source never pass for each other.
    private func newLeaseToken() -> String {
        "\(instance)#\(claims.add(1, ordering: .relaxed).newValue)"
    }

    // MARK: - Requests

    /// Checks a new source's URL before it is attached: its form, and for web URLs that its host resolves, within
    /// min(2 s, half the fetch timeout), to addresses the policy allows (the fetch checks again before it connects).
    /// A name that does not resolve in that time is refused too, so that no URL is attached unchecked.
    func checkLocation(_ url: String) throws(ApplicationError) {
        do {
            guard case .web(let webURL) = try SourceLocation(url, fileDirectory: options.fileDirectory) else { return }
            _ = try policy.checkHost(of: webURL, resolver: resolver, timeoutSeconds: min(2.0, options.timeoutSeconds / 2))
        } catch {
            throw .invalidMember("url: \(error.message)", pointer: "/url")
        }
    }

    /// Attaches or changes `list`'s source from a request body (`{"url","interval","sections","maxItems"}`) and
    /// fetches it at once, on the calling thread (run it on ``pool``).
    /// - Returns: Whether it was attached (rather than changed), and the source's state after its first fetch, as
    ///   served.
    /// - Throws: ``ApplicationError`` naming the member that is wrong, when the list is a view, or from the store.
    public func attach(_ list: String, body: JSONValue) throws(ApplicationError) -> (created: Bool, served: JSONValue) {
        let settings = try SourceSettings(requestBody: body, minimumInterval: options.minimumInterval, maximumItems: options.maximumItems)
        let attached = try attach(list, settings: settings)
        return (attached.created, Self.served(attached.source))
    }

    /// Attaches or changes `list`'s source and fetches it at once (on the calling source worker).
    /// - Returns: Whether it was attached (rather than changed), and the source after its first fetch.
    func attach(_ list: String, settings: SourceSettings) throws(ApplicationError) -> (created: Bool, source: StoredSource) {
        let view: StoredView?
        do {
            view = try viewStore.view(list)
        } catch {
            throw ApplicationError.from(error)
        }
        if let view {
            throw .fedElsewhere(
                "list \"\(list)\" is a view of list \"\(view.base)\": a list cannot have both a view and a source; detach the view first (DELETE /v1/lists/\(list)/view)")
        }
        try checkLocation(settings.url)
        // What earlier fetches learnt (validators, items) is kept when the content would map the same way (same
        // url, sections and maxItems): a PUT of the same source then fetches conditionally. Otherwise it starts
        // afresh, so that a 304 cannot leave the list mapped by the old settings.
        var state = SourceState.initial
        if let previous = try self.source(list), let old = SourceSettings(stored: JSONValue(stored: previous.settings)),
            old.url == settings.url, old.sections == settings.sections, old.maxItems == settings.maxItems
        {
            state = SourceState(stored: JSONValue(stored: previous.state))
        }
        let attached: (created: Bool, source: StoredSource)
        let owner = newLeaseToken()
        do {
            attached = try store.attachSource(
                list: list, settings: JSONWriter.string(of: .object(settings.jsonObject)), state: JSONWriter.string(of: state.storedJSON),
                owner: owner, nowMilliseconds: now, leaseMilliseconds: leaseMilliseconds, maximumSources: options.maximumSources)
        } catch {
            throw ApplicationError.from(error)
        }
        // Direct writes of the list are refused from now on (after the commit, so no check can record it again).
        directlyWritten.remove(list)
        return (attached.created, fetch(attached.source, owner: owner, settings: settings, state: state))
    }

    /// The source of `list`, if any.
    func source(_ list: String) throws(ApplicationError) -> StoredSource? {
        do {
            return try store.source(list)
        } catch {
            throw ApplicationError.from(error)
        }
    }

    /// The source of `list` and its state as served (`GET .../source`); `nil` when it has none.
    public func served(_ list: String) throws(ApplicationError) -> JSONValue? {
        try source(list).map(Self.served)
    }

    /// Detaches `list`'s source; `false` when it had none.
    public func detach(_ list: String) throws(ApplicationError) -> Bool {
        do {
            return try store.detachSource(list)
        } catch {
            throw ApplicationError.from(error)
        }
    }

    /// Counts for `/metrics`.
    public func counts() -> SourceCounts? { try? store.sourceCounts() }

    // MARK: - Fetching

    /// Runs one fetch of a source leased to `owner` and records its outcome (giving the lease back). Blocking.
    @discardableResult
    func fetch(_ source: StoredSource, owner: String, settings: SourceSettings? = nil, state: SourceState? = nil) -> StoredSource {
        let previous = state ?? SourceState(stored: JSONValue(stored: source.state))
        let result: SourceCycle.Result
        if let settings = settings ?? SourceSettings(stored: JSONValue(stored: source.settings)) {
            result = cycle.run(list: source.list, settings: settings, state: previous) { [store] in
                (try? store.holdsSourceLease(list: source.list, generation: source.generation, owner: owner)) ?? false
            }
        } else {
            // Only a store written by something else could hold this; it is shown, and retried daily.
            var failed = previous
            failed.lastError = SourceState.Failure(
                status: 500, title: "Internal Server Error", detail: "the source's stored settings cannot be read; attach it again", reason: "settings")
            failed.consecutiveFailures += 1
            result = SourceCycle.Result(state: failed, nextFetchAtMilliseconds: now + 86_400_000, outcome: .failed)
        }
        Counter(label: "listdelta_source_fetches_total", dimensions: [("outcome", result.outcome.rawValue)]).increment()
        guard result.outcome != .superseded else { return (try? store.source(source.list)) ?? source }
        if let failure = result.state.lastError {
            logger.notice(
                "a source fetch failed", metadata: ["list": "\(source.list)", "reason": "\(failure.reason)", "detail": "\(failure.detail)"])
        }
        var finished = source
        finished.state = JSONWriter.string(of: result.state.storedJSON)
        finished.nextFetchAtMilliseconds = result.nextFetchAtMilliseconds
        finished.isFailing = result.state.lastError != nil
        do {
            let recorded = try store.finishSourceFetch(
                list: source.list, generation: source.generation, owner: owner, state: finished.state, isFailing: finished.isFailing,
                nextFetchAtMilliseconds: finished.nextFetchAtMilliseconds)
            if !recorded {
                logger.info("a source changed or was detached during its fetch; its outcome is not recorded", metadata: ["list": "\(source.list)"])
            }
        } catch {
            logger.warning("a source fetch's outcome could not be recorded", metadata: ["list": "\(source.list)", "error": "\(error)"])
        }
        return finished
    }

    /// Starts the scheduler: every tick, claims as many due sources as the pool has room for.
    func start() {
        scheduleTick()
    }

    private func scheduleTick() {
        timers.after(Self.tickSeconds) { [self] in
            guard running.withLock({ $0 }) else { return }
            let usage = pool.usage
            let room = options.concurrentFetches - usage.running - usage.queued
            guard room > 0, pool.submit({ [self] in claimAndFetch(room) }) else {
                scheduleTick()
                return
            }
        }
    }

    private func claimAndFetch(_ room: Int) {
        defer { scheduleTick() }
        let due: [StoredSource]
        let owner = newLeaseToken()
        do {
            due = try store.claimDueSources(owner: owner, nowMilliseconds: now, leaseMilliseconds: leaseMilliseconds, limit: room)
        } catch {
            logger.warning("cannot claim due sources", metadata: ["error": "\(error)"])
            return
        }
        for source in due {
            pool.execute { [self] in fetch(source, owner: owner) }
        }
    }

    /// Stops the scheduler and the web client (fetches under way finish or fail).
    func shutdown() {
        running.withLock { $0 = false }
        pool.shutdown()
    }


    /// The served state: settings, then `lastFetch`, `lastError`, `nextFetchAt`, `consecutiveFailures`.
    static func served(_ source: StoredSource) -> JSONValue {
        var object = SourceSettings(stored: JSONValue(stored: source.settings))?.jsonObject ?? JSONObject()
        SourceState(stored: JSONValue(stored: source.state)).servedMembers(into: &object)
        object["nextFetchAt"] = .string(RFC3339.format(milliseconds: source.nextFetchAtMilliseconds))
        return .object(object)
    }
}

/// Fetches web locations with one fetcher and files with another.
struct LocationFetcher: SourceFetching {
    let web: any SourceFetching
    let file: any SourceFetching

    func fetch(_ request: FetchRequest) throws(SourceFetchError) -> FetchResponse {
        switch request.location {
        case .web: try web.fetch(request)
        case .file: try file.fetch(request)
        }
    }
}
