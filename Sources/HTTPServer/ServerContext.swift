import Logging
import Metrics
import Synchronization
import Tracing

/// State shared by every loop of one server (immutable settings plus atomics).
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let router: Router
    let logger: Logger
    let cors: CORSPolicy
    /// How response heads are written on the libevent this process runs with (resolved once).
    let headWriting: ResponseHeadWriting
    let connectionCount = Atomic<Int>(0)
    /// Connections refused because their client had as many open as it may.
    let refusedClientConnections = Atomic<Int>(0)
    /// Streams ended because their client fell more than ``HTTPServerConfiguration/maxOutputBytes`` behind.
    let overflowedStreams = Atomic<Int>(0)
    /// `http_connections_refused_total{reason="per_client"}`.
    let refusedClientConnectionsCounter = Counter(label: "http_connections_refused_total", dimensions: [("reason", "per_client")])
    /// `http_streams_ended_total{reason="output_full"}`.
    let overflowedStreamsCounter = Counter(label: "http_streams_ended_total", dimensions: [("reason", "output_full")])
    /// Open connections per client (``HTTPServerConfiguration/maxConnectionsPerClient``).
    let clients: ClientConnections
    let shuttingDown = Atomic<Bool>(false)
    /// Set when a shutdown was requested with a drain period (see `HTTPServerConfiguration.drainSeconds`).
    let draining = Atomic<Bool>(false)
    let shutdownRequest = Mutex<(@Sendable () -> Void)?>(nil)
    /// The tracer requests' spans are started with (the bootstrapped one, read once), or `nil` when requests are
    /// not traced.
    let tracer: (any Tracer)?
    /// ``HTTPServerConfiguration/tracesRequests``, checked first on every request (a plain load).
    let tracesRequests: Bool

    init(configuration: HTTPServerConfiguration, router: Router, logger: Logger) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.cors = CORSPolicy(configuration: configuration, router: router)
        self.clients = ClientConnections(limit: configuration.connectionsPerClientInForce)
        self.headWriting = LibeventCompatibility.headWriting(requested: configuration.responseHeadWriting)
        self.tracer = configuration.tracesRequests ? InstrumentationSystem.tracer : nil
        self.tracesRequests = configuration.tracesRequests
    }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    func requestShutdown() {
        let request = shutdownRequest.withLock { $0 }
        request?()
    }
}
