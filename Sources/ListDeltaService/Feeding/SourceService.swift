import Foundation
import ListDeltaCore
import ListDeltaFeeds
import ListDeltaSources
import ListDeltaStore
import Logging
import Metrics
import Synchronization

/// Lists fed by sources: attaching, detaching and reading them, fetching one at once, and the scheduler that
/// fetches every due source. The lease in the store makes one instance at a time fetch a given source.
///
/// Threads: fetches (a PUT's and the scheduler's) run on the `source` pool, never on a loop or the write pool, so
/// a slow feed holds up no other request; the scheduler's tick is a timer that hands a claim to that pool.
final class SourceService: Sendable {
    let store: any SourceStore
    let pool: WorkerPool
    /// Who holds leases taken by this instance: unique per process.
    let owner: String
    private let context: ServiceContext
    private let webFetcher: HTTPSourceFetcher
    private let cycle: SourceCycle
    private let policy: HostPolicy
    private let resolver: any AddressResolving
    private let running = Mutex(true)
    /// How often the scheduler looks for due sources, in seconds.
    static let tickSeconds = 0.5

    init(context: ServiceContext, resolver: any AddressResolving = SystemAddressResolver()) throws(ConfigurationError) {
        let configuration = context.configuration
        self.context = context
        self.store = context.sourceStore
        self.resolver = resolver
        do {
            policy = try HostPolicy(patterns: configuration.sourceHosts)
        } catch {
            throw ConfigurationError(error.description)
        }
        owner = "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        pool = WorkerPool(name: "source", threads: configuration.sourceFetches, queueLimit: configuration.sourceFetches * 4)
        let limits = FetchLimits(maximumBytes: configuration.sourceMaxBytes, timeoutSeconds: configuration.sourceTimeoutSeconds)
        webFetcher = HTTPSourceFetcher(limits: limits, policy: policy, resolver: resolver, userAgent: "ListDelta (+https://github.com/listdelta)")
        let fileDirectory = configuration.sourceDirectory.isEmpty ? nil : configuration.sourceDirectory
        cycle = SourceCycle(
            fetcher: LocationFetcher(web: webFetcher, file: FileSourceFetcher(limits: limits)),
            parser: FeedParser(limits: FeedLimits(maximumEntries: configuration.sourceMaxItems)),
            writer: RepositorySourceWriter(context: context), fileDirectory: fileDirectory, schedule: RetrySchedule(),
            maximumDepth: configuration.maxDepth, clock: { Int64(Date().timeIntervalSince1970 * 1_000) }, random: { Double.random(in: 0..<1) })
    }

    /// How long a lease lasts: well past the longest fetch, so that only a dead holder loses it.
    var leaseMilliseconds: Int64 { Int64(context.configuration.sourceTimeoutSeconds * 2_000) + 30_000 }

    private var now: Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

    // MARK: - Requests

    /// Checks a new source's URL before it is attached: its form, and for web URLs that its host resolves to
    /// addresses the policy allows (a name that does not resolve, or not within a second, is attached: that may
    /// pass, and its fetch says so).
    func checkLocation(_ url: String) throws(ServiceError) {
        let location: SourceLocation
        do {
            location = try SourceLocation(url, fileDirectory: context.configuration.sourceDirectory.isEmpty ? nil : context.configuration.sourceDirectory)
        } catch {
            throw .invalidMember("url: \(error.message)", pointer: "/url")
        }
        guard case .web(let webURL) = location, let host = webURL.host else { return }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        // A short look: the fetch checks again before it connects, so a slow name only delays the refusal.
        let lookup = min(1.0, context.configuration.sourceTimeoutSeconds)
        guard let addresses = try? resolver.resolve(bare, timeoutSeconds: lookup) else { return }
        do {
            try policy.check(host: bare, addresses: addresses)
        } catch {
            throw .invalidMember("url: \(error.message)", pointer: "/url")
        }
    }

    /// Attaches or changes `list`'s source and fetches it at once (on the calling source worker).
    /// - Returns: Whether it was attached (rather than changed), and the source after its first fetch.
    func attach(_ list: String, settings: SourceSettings) throws(ServiceError) -> (created: Bool, source: StoredSource) {
        try checkLocation(settings.url)
        // What earlier fetches learnt (validators, items) is kept when the content would map the same way (same
        // url, sections and maxItems): a PUT of the same source then fetches conditionally. Otherwise it starts
        // afresh, so that a 304 cannot leave the list mapped by the old settings.
        var state = SourceState.initial
        if let previous = try self.source(list), let old = SourceSettings(stored: Self.json(previous.settings)),
            old.url == settings.url, old.sections == settings.sections, old.maxItems == settings.maxItems
        {
            state = SourceState(stored: Self.json(previous.state))
        }
        let attached: (created: Bool, source: StoredSource)
        do {
            attached = try store.attachSource(
                list: list, settings: JSONWriter.string(of: .object(settings.jsonObject)), state: JSONWriter.string(of: state.storedJSON),
                owner: owner, nowMs: now, leaseMs: leaseMilliseconds, maximumSources: context.configuration.maxSources)
        } catch {
            throw ServiceError.from(error)
        }
        return (attached.created, fetch(attached.source, settings: settings, state: state))
    }

    /// The source of `list`, if any.
    func source(_ list: String) throws(ServiceError) -> StoredSource? {
        do {
            return try store.source(list)
        } catch {
            throw ServiceError.from(error)
        }
    }

    /// Detaches `list`'s source; `false` when it had none.
    func detach(_ list: String) throws(ServiceError) -> Bool {
        do {
            return try store.detachSource(list)
        } catch {
            throw ServiceError.from(error)
        }
    }

    /// Counts for `/metrics`.
    func counts() -> SourceCounts? { try? store.sourceCounts() }

    // MARK: - Fetching

    /// Runs one fetch of a leased source and records its outcome (giving the lease back). Blocking.
    @discardableResult
    func fetch(_ source: StoredSource, settings: SourceSettings? = nil, state: SourceState? = nil) -> StoredSource {
        guard let settings = settings ?? SourceSettings(stored: Self.json(source.settings)) else {
            context.logger.error("a stored source cannot be read; it is skipped", metadata: ["list": "\(source.list)"])
            return source
        }
        let result = cycle.run(list: source.list, settings: settings, state: state ?? SourceState(stored: Self.json(source.state)))
        Counter(label: "listdelta_source_fetches_total", dimensions: [("outcome", result.outcome.rawValue)]).increment()
        if let failure = result.state.lastError {
            context.logger.notice(
                "a source fetch failed", metadata: ["list": "\(source.list)", "reason": "\(failure.reason)", "detail": "\(failure.detail)"])
        }
        var finished = source
        finished.state = JSONWriter.string(of: result.state.storedJSON)
        finished.nextFetchAtMs = result.nextFetchAtMilliseconds
        finished.isFailing = result.state.lastError != nil
        do {
            let recorded = try store.finishSourceFetch(
                list: source.list, generation: source.generation, owner: owner, state: finished.state, isFailing: finished.isFailing,
                nextFetchAtMs: finished.nextFetchAtMs)
            if !recorded {
                context.logger.info("a source changed or was detached during its fetch; its outcome is not recorded", metadata: ["list": "\(source.list)"])
            }
        } catch {
            context.logger.warning("a source fetch's outcome could not be recorded", metadata: ["list": "\(source.list)", "error": "\(error)"])
        }
        return finished
    }

    /// Starts the scheduler: every tick, claims as many due sources as the pool has room for.
    func start() {
        scheduleTick()
    }

    private func scheduleTick() {
        context.after(Self.tickSeconds) { [self] in
            guard running.withLock({ $0 }) else { return }
            let usage = pool.usage
            let room = context.configuration.sourceFetches - usage.running - usage.queued
            guard room > 0, pool.submit({ [self] in claimAndFetch(room) }) else {
                scheduleTick()
                return
            }
        }
    }

    private func claimAndFetch(_ room: Int) {
        defer { scheduleTick() }
        let due: [StoredSource]
        do {
            due = try store.claimDueSources(owner: owner, nowMs: now, leaseMs: leaseMilliseconds, limit: room)
        } catch {
            context.logger.warning("cannot claim due sources", metadata: ["error": "\(error)"])
            return
        }
        for source in due {
            pool.execute { [self] in fetch(source) }
        }
    }

    /// Stops the scheduler and the web client (fetches under way finish or fail).
    func shutdown() {
        running.withLock { $0 = false }
        pool.shutdown()
        webFetcher.shutdown()
    }

    /// A stored JSON text as a value (`.null` when it cannot be read).
    static func json(_ text: String) -> JSONValue {
        (try? JSONReader().read(text)) ?? .null
    }

    /// The served state: settings, then `lastFetch`, `lastError`, `nextFetchAt`, `consecutiveFailures`.
    static func served(_ source: StoredSource) -> JSONValue {
        var object = SourceSettings(stored: json(source.settings))?.jsonObject ?? JSONObject()
        SourceState(stored: json(source.state)).servedMembers(into: &object)
        object["nextFetchAt"] = .string(RFC3339.format(milliseconds: source.nextFetchAtMs))
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
