public import ListDeltaCore
public import ListDeltaEngine
public import ListDeltaStorage
public import Logging
import Metrics
import Synchronization

/// The application: everything ListDelta does with lists, whoever asks (the HTTP adapter, a test, a command).
///
/// It owns the repository of lists and the hub that wakes their watchers (the engine's), the rendered bodies, the
/// worker pools, the sources that feed lists and the views kept over them, and what it hears of the other
/// instances sharing its store. One function says what follows every commit: ``afterCommit(_:)``.
///
/// Threads (docs/architecture.md): it never runs on an event loop. Its calls that may block (the store, a diff, a
/// fetch) are made from the pools' threads; ``pools`` is where callers run them.
public final class Application: Sendable {
    /// What it was told by the composition root.
    public let options: ApplicationOptions
    /// The lists, their revisions and caches.
    public let repository: ListRepository
    /// The parked polls and event streams of every list.
    public let hub = ChangeHub()
    /// Rendered documents (by revision) and diffs (by from, to and format).
    public let bodies: RenderCache
    /// Where work runs.
    public let pools: WorkerPools
    /// Where log lines go.
    public let logger: Logger
    /// The store, when other instances share it (PostgreSQL); `nil` for the embedded one.
    public let sharedStore: (any SharedRevisionStore)?
    /// Where sources are kept (the same store as revisions).
    let sourceStore: any SourceStore
    /// Where views are kept (the same store as revisions).
    let viewStore: any ViewStore
    /// Which lists have views, and the hook that brings them up to date after a write of their base.
    let viewRegistry = ViewRegistry()
    /// Lists known to be neither fed by a source nor a view (see ``refuseDirectWrite(_:)``).
    let directlyWritten: DirectlyWrittenLists
    /// Where deadlines fire.
    public let timers = Timers()
    private let drainingFlag = Atomic<Bool>(false)

    /// The lists fed by sources. Made right after the rest of the application, which it refers back to; never
    /// changed afterwards (so reading it needs no lock).
    public nonisolated(unsafe) private(set) var sources: SourceKeeper!
    /// The views. Made and kept like ``sources``.
    public nonisolated(unsafe) private(set) var views: ViewKeeper!
    /// The live queries that polls and streams follow. Made and kept like ``sources``.
    public nonisolated(unsafe) private(set) var queries: QueryKeeper!
    /// The answers of writes sent with an `Idempotency-Key`.
    public let idempotency: IdempotencyKeys
    /// The sweep of expired answers. Made and kept like ``sources``.
    private nonisolated(unsafe) var answerSweep: AnswerSweep!

    /// Builds the application over `store` (opened by the caller; closed by ``shutdown()`` when shared).
    /// - Parameters:
    ///   - loopCheck: What tells the engine that a call came from an event loop (where nothing may block).
    /// - Throws: ``ApplicationError`` when the store's lists cannot be read or a source option cannot be used.
    public init(
        options: ApplicationOptions, store: any RevisionStore & SourceStore & ViewStore, logger: Logger, loopCheck: EventLoopCheck
    ) throws(ApplicationError) {
        self.options = options
        self.logger = logger
        do {
            repository = try ListRepository(
                store: store, limits: options.documentLimits, cacheBytes: options.cacheBytes * 3 / 8, cachedHeads: options.cachedLists,
                loopCheck: loopCheck,
                rebuilds: RebuildStatistics { start, diffs in
                    Counter(label: "listdelta_rebuilds_total", dimensions: [("from", start.rawValue)]).increment()
                    Counter(label: "listdelta_rebuild_diffs_total", dimensions: [("from", start.rawValue)]).increment(by: Int64(diffs))
                })
        } catch {
            (store as? any SharedRevisionStore)?.close()
            throw .engine(error)
        }
        let shared = store as? any SharedRevisionStore
        sharedStore = shared
        sourceStore = store
        viewStore = store
        directlyWritten = DirectlyWrittenLists(isTrusted: shared == nil)
        bodies = RenderCache(repository: repository, budget: options.cacheBytes / 4)
        pools = WorkerPools(options: options)
        idempotency = IdempotencyKeys(store: store, seconds: options.idempotencySeconds)
        sources = try SourceKeeper(app: self)
        views = ViewKeeper(app: self)
        queries = QueryKeeper(app: self, maximumQueries: options.maximumQueries, resultBytes: options.cacheBytes / 8)
        answerSweep = AnswerSweep(app: self)
    }

    /// Starts what runs by itself: the sources' scheduler, the views' and the queries' sweeps, the sweep of expired
    /// idempotency answers, and listening to the other instances.
    public func start() {
        sharedStore?.startAnnouncements { [self] announcement in receive(announcement) }
        sources.start()
        views.start()
        queries.start()
        answerSweep.start()
    }

    /// True once the instance was asked to stop and drains: it still serves, but says it should not be sent more.
    public var isDraining: Bool { drainingFlag.load(ordering: .relaxed) }

    /// Marks the instance as draining before a stop.
    public func beginDraining() {
        drainingFlag.store(true, ordering: .relaxed)
        logger.info("draining until the stop")
    }

    /// Ends every parked poll and event stream and refuses new ones, stops the scheduler and the sweeps, then the
    /// pools once their queued work is done, and closes a shared store. Idempotent.
    public func shutdown() {
        hub.shutdown()
        sources.shutdown()
        views.shutdown()
        answerSweep.shutdown()
        pools.shutdown()
        sharedStore?.close()
    }

    // MARK: - Where work runs

    /// Runs `job`, which continues admitted work (a woken poll, a remote revision's rendering), on the read pool:
    /// never refused.
    public func continueWork(_ job: @escaping @Sendable () -> Void) {
        pools.read.execute(job)
    }

    /// Runs `job` after `seconds` on the timer queue: it must only hand work on (to a pool or a responder).
    public func after(_ seconds: Double, _ job: @escaping @Sendable () -> Void) {
        timers.after(seconds, job)
    }
}

extension Optional where Wrapped == Application {
    /// The application a part it owns refers back to (weakly: neither keeps the other alive, and a background job
    /// of the part stops once the application is gone), or ``ApplicationError`` when it is gone.
    func orStopped() throws(ApplicationError) -> Application {
        guard let self else { throw .engine(.unavailable("the service has stopped")) }
        return self
    }
}
