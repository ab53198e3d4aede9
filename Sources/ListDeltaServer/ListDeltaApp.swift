import HTTPServer
public import ListDeltaAccess
import ListDeltaApplication
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
    public let configuration: ServiceConfiguration
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
        let service = try ListDeltaService.composed(configuration: configuration, store: store, logger: logger, registry: registry, keys: keys)
        self.service = service
        self.configuration = configuration
        self.logger = logger
        server = HTTPServer(configuration: configuration.httpServerConfiguration, router: service.router, logger: logger)
        let app = service.app
        server.onDrain = { app.beginDraining() }
        server.onShutdown = { app.shutdown() }
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
