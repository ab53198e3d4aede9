import CLibevent

public import Logging
import Synchronization

/// A multi-threaded HTTP/1.1 server on libevent's evhttp.
///
/// ```swift
/// let server = HTTPServer(configuration: config, router: router, logger: logger)
/// server.installSignalHandlers()
/// try server.start()
/// server.waitUntilStopped()
/// ```
public final class HTTPServer: Sendable {
    private struct State {
        var started = false
        var loops: [EventLoop] = []
        var threads: [UInt] = []
        var signalHandlers = false
        var onShutdown: (@Sendable () -> Void)?
        var onDrain: (@Sendable () -> Void)?
    }

    private let context: ServerContext
    private let state = Mutex(State())
    private let boundPort = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(true)

    /// Creates a server; nothing is bound until ``start()``.
    /// - Parameters:
    ///   - configuration: Addresses, limits and behaviour.
    ///   - router: The routes.
    ///   - logger: Receives the access log (`.info`) and server events.
    public init(configuration: HTTPServerConfiguration, router: Router, logger: Logger) {
        self.context = ServerContext(configuration: configuration, router: router, logger: logger)
        let box = WeakServer()
        self.context.shutdownRequest.withLock { $0 = { box.server.withLock { $0.value }?.shutdown() } }
        box.server.withLock { $0.value = self }
    }

    /// The bound port (useful with port 0); 0 before ``start()``.
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// How this server writes response heads on the libevent it runs with (see ``LibeventCompatibility``).
    public var responseHeadWriting: ResponseHeadWriting { context.headWriting }

    /// Connections open now, counted from accept (those beyond the hard cap included until they are closed).
    public var openConnections: Int { context.connectionCount.load(ordering: .relaxed) }

    /// Connections refused since the start because their client had
    /// ``HTTPServerConfiguration/maxConnectionsPerClient`` open already.
    public var refusedClientConnections: Int { context.refusedClientConnections.load(ordering: .relaxed) }

    /// Streams ended since the start because their client fell more than ``HTTPServerConfiguration/maxOutputBytes``
    /// behind.
    public var overflowedStreams: Int { context.overflowedStreams.load(ordering: .relaxed) }

    /// Called once by ``shutdown()`` after the listeners stopped, so the app can end its parked requests and
    /// streams. Set it before ``start()``.
    public var onShutdown: (@Sendable () -> Void)? {
        get { state.withLock { $0.onShutdown } }
        set { state.withLock { $0.onShutdown = newValue } }
    }

    /// Called once when a shutdown is requested with ``HTTPServerConfiguration/drainSeconds`` above zero, as the
    /// drain begins (before ``onShutdown``). Set it before ``start()``.
    public var onDrain: (@Sendable () -> Void)? {
        get { state.withLock { $0.onDrain } }
        set { state.withLock { $0.onDrain = newValue } }
    }

    /// Binds one `SO_REUSEPORT` listener per loop, starts the loop threads and returns.
    /// - Throws: ``HTTPServerError`` when the configuration is invalid, binding fails or it was already started.
    public func start() throws(HTTPServerError) {
        let configuration = context.configuration
        try configuration.validate()
        POSIX.ignoreSIGPIPE()
        // One descriptor per connection, plus the listeners, the loops' own and the store's files.
        let neededFiles = configuration.maxConnections + configuration.eventLoops * 4 + 64
        let fileLimit = POSIX.raiseOpenFileLimit(to: neededFiles)
        if fileLimit < neededFiles {
            context.logger.warning(
                "the open-file limit is \(fileLimit) (hard limit included), below the \(neededFiles) that maxConnections \(configuration.maxConnections) needs: connections past it are refused by the kernel; raise it (ulimit -n, or docker run --ulimit nofile=...)")
        }
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard !state.started, !context.isShuttingDown else { throw .alreadyStarted }
            var loops: [EventLoop] = []
            var port = configuration.port
            for index in 0..<configuration.eventLoops {
                let loop = try EventLoop(index: index, context: context)
                loops.append(loop)
                let listener = try Self.bind(loop: loop, host: configuration.host, port: port, backlog: configuration.listenBacklog)
                if port == 0 { port = Self.localPort(listener) }
                loop.boundSocket = evhttp_bind_listener(loop.http, listener)
            }
            boundPort.store(port, ordering: .releasing)
            if state.signalHandlers { loops[0].installSignalEvents() }
            state.started = true
            state.loops = loops
            stopped.store(false, ordering: .releasing)
            for loop in loops {
                try loop.startThread()
                state.threads.append(loop.thread)
            }
        }
        context.logger.info(
            "HTTP server listening on \(configuration.host):\(port) with \(configuration.eventLoops) loops (libevent \(LibeventCompatibility.runningVersionString), \(context.headWriting.rawValue) response heads)")
    }

    private static func bind(loop: EventLoop, host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> OpaquePointer {
        let flags = UInt32(LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC)
        guard let address = POSIX.socketAddress(host: host, port: port) else { throw .bindFailed(host: host, port: port) }
        let listener = address.withUnsafeBytes { raw in
            evconnlistener_new_bind(
                loop.base, nil, nil, flags, backlog, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), Int32(raw.count))
        }
        guard let listener else { throw .bindFailed(host: host, port: port) }
        return listener
    }

    private static func localPort(_ listener: OpaquePointer) -> Int {
        POSIX.localPort(fd: evconnlistener_get_fd(listener))
    }

    /// Requests a graceful stop. With ``HTTPServerConfiguration/drainSeconds`` above zero the server first keeps
    /// serving for that long (``onDrain`` is called as it begins), then stops; a request made while draining
    /// stops at once. Idempotent; callable from any thread.
    public func shutdown() {
        let drain = context.configuration.drainSeconds
        guard drain > 0, context.draining.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return stop() }
        let (loop, hook) = state.withLock { ($0.loops.first, $0.onDrain) }
        guard let loop else { return stop() }
        context.logger.info("draining before the stop", metadata: ["seconds": "\(drain)"])
        hook?()
        loop.execute { loop.once(after: drain) { [weak self] in self?.stop() } }
    }

    /// Two-phase graceful stop: stop accepting and answer new requests 503 with `Connection: close`, call
    /// ``onShutdown``, let in-flight requests finish within ``HTTPServerConfiguration/shutdownGraceSeconds`` (then
    /// answer them 503), exit the loops and free everything. Idempotent.
    private func stop() {
        guard context.shuttingDown.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let (loops, hook) = state.withLock { ($0.loops, $0.onShutdown) }
        context.logger.info("HTTP server shutting down")
        let grace = UInt64(context.configuration.shutdownGraceSeconds * 1_000_000_000)
        let deadline = Clock.nanoseconds() + grace
        for loop in loops {
            loop.execute { loop.beginDrain(deadline: deadline) }
        }
        hook?()
    }

    /// Blocks until every loop has exited and its resources are freed (returns at once if never started).
    public func waitUntilStopped() {
        let threads = state.withLock { state -> [UInt] in
            defer { state.threads = [] }
            return state.threads
        }
        for thread in threads { POSIX.join(thread) }
        if !threads.isEmpty {
            state.withLock { $0.loops = [] }
            stopped.store(true, ordering: .releasing)
        }
        while !stopped.load(ordering: .acquiring) { POSIX.sleep(microseconds: 5_000) }
    }

    /// Turns SIGTERM and SIGINT into ``shutdown()`` (handled on the first loop) and ignores SIGPIPE.
    public func installSignalHandlers() {
        POSIX.ignoreSIGPIPE()
        let loop = state.withLock { state -> EventLoop? in
            state.signalHandlers = true
            return state.loops.first
        }
        if let loop { loop.execute { loop.installSignalEvents() } }
    }
}

/// A weak reference to the server for the signal path (avoids a reference cycle).
private final class WeakServer: Sendable {
    struct Reference: Sendable { weak var value: HTTPServer? }
    let server = Mutex(Reference())
}
