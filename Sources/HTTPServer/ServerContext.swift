import Logging
import Synchronization

/// State shared by every loop of one server (immutable settings plus atomics).
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let router: Router
    let logger: Logger
    let cors: CORSPolicy
    /// How response heads are written on the libevent this process runs with (resolved once).
    let headWriting: ResponseHeadWriting
    let connectionCount = Atomic<Int>(0)
    let shuttingDown = Atomic<Bool>(false)
    /// Set when a shutdown was requested with a drain period (see `HTTPServerConfiguration.drainSeconds`).
    let draining = Atomic<Bool>(false)
    let shutdownRequest = Mutex<(@Sendable () -> Void)?>(nil)

    init(configuration: HTTPServerConfiguration, router: Router, logger: Logger) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.cors = CORSPolicy(configuration: configuration, router: router)
        self.headWriting = LibeventCompatibility.headWriting(requested: configuration.responseHeadWriting)
    }

    var isShuttingDown: Bool { shuttingDown.load(ordering: .relaxed) }

    func requestShutdown() {
        let request = shutdownRequest.withLock { $0 }
        request?()
    }
}
