import HTTPServer
public import ListDeltaAccess
import ListDeltaEngine
public import ListDeltaService
public import Logging
public import Prometheus

/// The ListDelta service behind its HTTP server: ``ListDeltaService``'s routes served by libevent.
///
/// `listdelta serve` builds one with its configuration, then `start()`s it and waits; end-to-end tests build the
/// same app.
public final class ListDeltaApp: Sendable {
    /// The configuration it runs with.
    public var configuration: ServiceConfiguration { service.configuration }
    /// The routes and their state, without the socket.
    public let service: ListDeltaService
    private let server: HTTPServer
    private let logger: Logger

    /// Opens the store and builds the routes and the server.
    /// - Parameters:
    ///   - registry: where `/metrics` reads from; `nil` when the process bootstrapped no Prometheus factory.
    ///   - keys: the scoped tokens' keys (see ``ListDeltaService/init(configuration:logger:registry:keys:)``).
    /// - Throws: `ConfigurationError` for an invalid configuration or a store that cannot be opened.
    public init(
        configuration: ServiceConfiguration, logger: Logger, registry: PrometheusCollectorRegistry?, keys: VerificationKeys = .none
    ) throws(ConfigurationError) {
        try configuration.validateStore()
        let store = try configuration.openStore(logger: logger)
        let service = try ListDeltaService(configuration: configuration, store: store, logger: logger, registry: registry, keys: keys)
        self.service = service
        self.logger = logger
        var http = HTTPServerConfiguration()
        http.host = configuration.host
        http.port = configuration.port
        http.eventLoops = configuration.eventLoops
        http.maxBodySize = configuration.maxBodyBytes
        http.maxInflatedBodySize = configuration.maxBodyBytes
        http.maxConnections = configuration.maxConnections
        // Room for a many-lists request: `maxListsPerRequest` entries of `id:revision,` (at most 140 bytes each) in
        // the target, and again in `Last-Event-ID`.
        http.maxURILength = 8 * 1024 + configuration.maxListsPerRequest * 140
        http.maxHeadersSize = 16 * 1024 + 2 * configuration.maxListsPerRequest * 140
        http.timeoutSeconds = configuration.timeoutSeconds
        http.requestTimeoutSeconds = configuration.requestTimeoutSeconds
        http.corsAllowedOrigins = configuration.corsOrigins
        http.corsExposedHeaders = ["ETag", "Link", "Content-Encoding", "Location"]
        http.corsAllowedHeaders = ["Authorization", "Content-Type", "Content-Encoding", "If-Match", "If-None-Match", "Last-Event-ID"]
        http.gzipMinimumSize = RenderedBody.compressionThreshold
        http.responseHeadWriting = ResponseHeadWriting(rawValue: configuration.responseHead) ?? .plain
        http.drainSeconds = configuration.drainSeconds
        http.maxConnectionsPerClient = configuration.maxConnectionsPerClient
        http.headerTimeoutSeconds = configuration.headerTimeoutSeconds
        http.maxOutputBytes = configuration.maxOutputBytes
        http.defaultResponseHeaders = SecurityHeaders.defaults
        server = HTTPServer(configuration: http, router: service.router, logger: logger)
        server.onDrain = { service.beginDraining() }
        server.onShutdown = { service.shutdown() }
    }

    /// Binds and starts serving.
    /// - Throws: `ConfigurationError` when the address cannot be bound.
    public func start() throws(ConfigurationError) {
        do {
            try server.start()
        } catch {
            throw ConfigurationError("cannot serve on \(configuration.host):\(configuration.port): \(error)")
        }
        logger.info(
            "listening",
            metadata: [
                "address": "\(configuration.host):\(server.port)", "store": "\(configuration.storeDescription)",
                "workers": "\(configuration.workerThreads) read, \(configuration.writeThreadsInUse) write",
            ])
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
