import HTTPServer
import ListDeltaCore
import ListDeltaStore
import Logging
import Prometheus

/// The ListDelta service: API v1 over the HTTP layer, revisions in SQLite.
///
/// `listdelta serve` builds one with its configuration, then `start()`s it and waits; tests build the same app.
public final class ListDeltaApp: Sendable {
    /// The configuration it runs with.
    public let configuration: ServiceConfiguration
    private let server: HTTPServer
    private let context: ServiceContext

    /// Opens the store and builds the routes.
    /// - Parameters:
    ///   - registry: where `/metrics` reads from; `nil` when the process bootstrapped no Prometheus factory.
    /// - Throws: `ConfigurationError` for an invalid configuration or a store that cannot be opened.
    public init(configuration: ServiceConfiguration, logger: Logger, registry: PrometheusCollectorRegistry?) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        var storeConfiguration = StoreConfiguration(directory: configuration.dataDirectory)
        storeConfiguration.retention = configuration.retention
        storeConfiguration.durableSync = configuration.durableSync
        let store: ListStore
        do {
            store = try ListStore(configuration: storeConfiguration)
        } catch {
            throw ConfigurationError("cannot open the store in \(configuration.dataDirectory): \(error)")
        }
        let repository = ListRepository(store: store, limits: configuration.documentLimits, cacheBytes: configuration.cacheBytes / 2)
        let context = ServiceContext(configuration: configuration, repository: repository, logger: logger)
        self.context = context

        var router = Router()
        ReadRoutes(context: context).register(in: &router)
        WriteRoutes(context: context).register(in: &router)
        DiffRoutes(context: context).register(in: &router)
        EventRoutes(context: context).register(in: &router)
        OperationalRoutes(context: context, registry: registry).register(in: &router)
        StaticRoutes(webRoot: configuration.webRoot).register(in: &router)

        var http = HTTPServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        http.eventLoops = configuration.eventLoops
        http.maxBodySize = configuration.maxBodyBytes
        http.maxInflatedBodySize = configuration.maxBodyBytes
        http.maxConnections = configuration.maxConnections
        http.timeoutSeconds = configuration.timeoutSeconds
        http.requestTimeoutSeconds = configuration.requestTimeoutSeconds
        http.corsAllowedOrigins = configuration.corsOrigins
        http.gzipMinimumSize = RenderedBody.compressionThreshold
        server = HTTPServer(configuration: http, router: router, logger: logger)
        let hub = context.hub
        server.onShutdown = { hub.shutdown() }
    }

    /// Binds and starts serving.
    /// - Throws: `ConfigurationError` when the address cannot be bound.
    public func start() throws(ConfigurationError) {
        do {
            try server.start()
        } catch {
            throw ConfigurationError("cannot serve on \(configuration.host):\(configuration.port): \(error)")
        }
        context.logger.info("listening", metadata: ["address": "\(configuration.host):\(server.port)", "data": "\(configuration.dataDirectory)"])
    }

    /// The bound port (useful with port 0).
    public var port: Int { server.port }

    /// Stops on SIGTERM or SIGINT.
    public func installSignalHandlers() { server.installSignalHandlers() }

    /// Begins a graceful stop.
    public func shutdown() { server.shutdown() }

    /// Blocks until the server stopped.
    public func waitUntilStopped() { server.waitUntilStopped() }
}
