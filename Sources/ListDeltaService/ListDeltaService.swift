public import HTTPServer
public import ListDeltaAccess
import ListDeltaCore
import ListDeltaEngine
public import ListDeltaStorage
public import Logging
import Metrics
public import Prometheus

/// API v1 without a socket: the store, the repository, the watchers, the worker pools and the routes.
///
/// ``ListDeltaApp`` puts it behind the HTTP server; tests hand requests to ``router`` with an in-memory
/// `HTTPResponding` and so exercise every route, the pools and the races between them in-process.
public final class ListDeltaService: Sendable {
    /// The configuration it runs with.
    public let configuration: ServiceConfiguration
    /// Every route of the API, the page and the operational endpoints.
    public let router: Router
    let context: ServiceContext
    let sources: SourceService
    let views: ViewService

    /// Builds the routes over `store`.
    /// - Parameters:
    ///   - store: Where revisions, sources and views are kept (opened by the caller, closed by ``shutdown()`` when shared).
    ///   - registry: where `/metrics` reads from; `nil` when the process bootstrapped no Prometheus factory.
    ///   - keys: the scoped tokens' keys, from ``ServiceConfiguration/verificationKeys()``; required when the
    ///     configuration names `jwtSecret` or `jwtPublicKeys`.
    /// - Throws: `ConfigurationError` for an invalid configuration or a store whose lists cannot be read.
    public init(
        configuration: ServiceConfiguration, store: any RevisionStore & SourceStore & ViewStore, logger: Logger, registry: PrometheusCollectorRegistry?,
        keys: VerificationKeys = .none
    ) throws(ConfigurationError) {
        try configuration.validate()
        guard keys.isEmpty == !configuration.usesScopedTokens else {
            throw ConfigurationError("the JWT keys passed must be the configuration's: load them with verificationKeys()")
        }
        self.configuration = configuration
        let repository: ListRepository
        do {
            repository = try ListRepository(
                store: store, limits: configuration.documentLimits, cacheBytes: configuration.cacheBytes / 2,
                cachedHeads: configuration.cachedLists, loopCheck: EventLoopCheck { EventLoopThread.isCurrent },
                rebuilds: RebuildStatistics { start, diffs in
                    Counter(label: "listdelta_rebuilds_total", dimensions: [("from", start.rawValue)]).increment()
                    Counter(label: "listdelta_rebuild_diffs_total", dimensions: [("from", start.rawValue)]).increment(by: Int64(diffs))
                })
        } catch {
            (store as? any SharedRevisionStore)?.close()
            throw ConfigurationError("cannot read the lists of the store: \(error)")
        }
        let access = AccessControl(configuration: configuration, keys: keys)
        let shared = store as? any SharedRevisionStore
        let context = ServiceContext(
            configuration: configuration, repository: repository, logger: logger, access: access, sharedStore: shared, sourceStore: store, viewStore: store)
        self.context = context
        let sources = try SourceService(context: context)
        self.sources = sources
        let views = ViewService(context: context)
        self.views = views
        shared?.startAnnouncements { [context] announcement in context.receive(announcement) }

        var router = Router()
        ReadRoutes(context: context).register(in: &router)
        WriteRoutes(context: context).register(in: &router)
        DiffRoutes(context: context).register(in: &router)
        HistoryRoutes(context: context).register(in: &router)
        EventRoutes(context: context).register(in: &router)
        ManyListsRoutes(context: context).register(in: &router)
        SourceRoutes(context: context, sources: sources).register(in: &router)
        ViewRoutes(context: context, views: views).register(in: &router)
        OperationalRoutes(context: context, registry: registry, sources: sources).register(in: &router)
        StaticRoutes(webRoot: configuration.webRoot).register(in: &router)
        self.router = router
        sources.start()
        views.start()
    }

    /// Marks the instance as draining before a stop: it still serves, but `/healthz` answers 503 so that load
    /// balancers send new requests elsewhere.
    public func beginDraining() {
        context.beginDraining()
        context.logger.info("draining: /healthz answers 503 until the stop")
    }

    /// Ends every parked poll and event stream (503 / end of stream) and refuses new ones, then stops the pools
    /// once their queued work is done. Idempotent.
    public func shutdown() {
        context.hub.shutdown()
        sources.shutdown()
        views.shutdown()
        context.shutdown()
        context.sharedStore?.close()
    }
}
