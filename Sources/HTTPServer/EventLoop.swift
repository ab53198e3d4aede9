import CLibevent
import Logging

import Synchronization

/// One libevent loop thread: an `event_base`, its `evhttp` and its `SO_REUSEPORT` listener.
///
/// Threading rule: `base`, `http` and every `var` below are touched only on the loop thread (or before the thread
/// starts / after it was joined). Other threads only call ``execute(_:)``, which is guarded by `pending` and wakes
/// the loop through a pipe, so libevent itself is never called from two threads and runs without its locks.
final class EventLoop: @unchecked Sendable {
    let index: Int
    let context: ServerContext
    let base: OpaquePointer
    let http: OpaquePointer
    var boundSocket: OpaquePointer?
    var thread: UInt = 0

    private var wakeEvent: OpaquePointer?
    private let wakePipe: (read: Int32, write: Int32)
    /// Runs ``bindAccepted()`` in the loop pass of an accept.
    var bindEvent: OpaquePointer?
    /// Runs the error page rewrites queued by ``rewriteLater(_:)``, in the pass the pages were written in.
    private var rewriteEvent: OpaquePointer?
    private var pendingRewrites: [Connection] = []
    private var sweepTimer: OpaquePointer?
    private var drainTimer: OpaquePointer?
    private var signalEvents: [OpaquePointer] = []
    private let pending = Mutex<(jobs: [@Sendable () -> Void], stopped: Bool)>(([], false))
    private let loopThread = Atomic<UInt>(0)

    /// Live connections of this loop, keyed by their bufferevent.
    var connections: [OpaquePointer: Connection] = [:]
    /// The same connections by socket descriptor, filled on first lookup: a request finds its connection by
    /// indexing, without hashing.
    var connectionsByDescriptor: [Connection?] = []
    /// Connections accepted in this loop pass, not yet bound to their `evhttp_connection`.
    var accepted: [Connection] = []
    /// The `Date` header value, formatted once a second.
    var date = HTTPDateCache()
    /// Requests dispatched and not yet completed or closed.
    var inFlight: [ObjectIdentifier: RequestContext] = [:]
    /// Cached metric handles (bounded: routes × methods × statuses).
    var metrics = RequestMetrics()
    /// Whether the access log is on (the logger's level, read once: checking it per request costs a copy of the
    /// log handler).
    let logsRequests: Bool
    /// The connections' idle timeout (read and write), as libevent's common timeout of this loop's base.
    private(set) var idleTimeout = timeval()
    /// Draws which requests start a trace (``HTTPServerConfiguration/traceRootRatio``): a fast generator of the
    /// loop's own, seeded at random, since a system draw per request costs a system call.
    var traceDraws = SplitMix64(seed: UInt64.random(in: .min ... .max))
    /// Scratch buffer for stream chunks.
    private(set) var chunkBuffer: OpaquePointer?

    init(index: Int, context: ServerContext) throws(HTTPServerError) {
        self.index = index
        self.context = context
        self.logsRequests = context.logger.logLevel <= .info
        guard let config = event_config_new() else { throw .eventLoopCreationFailed }
        defer { event_config_free(config) }
        event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        guard let base = event_base_new_with_config(config) else { throw .eventLoopCreationFailed }
        guard let wakePipe = POSIX.makeWakePipe() else {
            event_base_free(base)
            throw .eventLoopCreationFailed
        }
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            POSIX.close(fd: wakePipe.0)
            POSIX.close(fd: wakePipe.1)
            throw .eventLoopCreationFailed
        }
        self.base = base
        self.http = http
        self.wakePipe = wakePipe
        configureHTTP()
        let me = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(base, wakePipe.0, Int16(EV_READ | EV_PERSIST), { _, _, arg in
            Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().runPendingJobs()
        }, me)
        if let wakeEvent { event_add(wakeEvent, nil) }
        bindEvent = event_new(base, -1, 0, { _, _, arg in
            Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().bindAccepted()
        }, me)
        rewriteEvent = event_new(base, -1, 0, { _, _, arg in
            Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().runRewrites()
        }, me)
        sweepTimer = event_new(base, -1, Int16(EV_PERSIST), { _, _, arg in
            Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().sweepLateRequests()
        }, me)
        var second = timeval(tv_sec: 1, tv_usec: 0)
        if let sweepTimer { event_add(sweepTimer, &second) }
        chunkBuffer = evbuffer_new()
    }

    private func configureHTTP() {
        let c = context.configuration
        // A common timeout: libevent keeps the connections' read and write timeouts, all of one duration, in a
        // queue instead of its timer heap, so re-arming them (several times per request) costs O(1).
        var duration = timeval(tv_sec: c.timeoutSeconds, tv_usec: 0)
        // (Should libevent refuse one, the plain duration still bounds every connection.)
        idleTimeout = event_base_init_common_timeout(base, &duration)?.pointee ?? duration
        evhttp_set_timeout_tv(http, &idleTimeout)
        // Hard cap for libevent; the exact limit (413 problem) is checked in Swift, see `maxBodySize`.
        evhttp_set_max_body_size(http, Int(c.maxBodySize) * 2 + 1024)
        evhttp_set_max_headers_size(http, c.maxHeadersSize)
        evhttp_set_flags(http, Int32(EVHTTP_SERVER_LINGERING_CLOSE))
        // Every method libevent parses reaches Swift, which answers unsupported ones with a problem body.
        evhttp_set_allowed_methods(http, 0x1FF)
        evhttp_set_default_content_type(http, nil)
        evhttp_set_gencb(http, { req, arg in
            guard let req, let arg else { return }
            Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().handle(req)
        }, Unmanaged.passUnretained(self).toOpaque())
        evhttp_set_bevcb(http, { base, arg in
            guard let base, let arg else { return nil }
            return Unmanaged<EventLoop>.fromOpaque(arg).takeUnretainedValue().accept(base)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool { loopThread.load(ordering: .acquiring) == POSIX.threadID() }

    /// Stops the process when loop-only code (every evhttp call, a request's mutable state) runs on another thread,
    /// in release builds too, as the engine's ``EventLoopCheck`` does: libevent runs without its locks, so such a
    /// call would corrupt it silently. An atomic load and a thread id compare per call. Before the thread starts
    /// and after it stopped nothing runs on it, so only a running loop is checked.
    @inline(__always)
    func preconditionInLoop(_ function: StaticString = #function, file: StaticString = #fileID, line: UInt = #line) {
        let owner = loopThread.load(ordering: .relaxed)
        precondition(owner == 0 || owner == POSIX.threadID(), "\(function) must run on its event loop's thread", file: file, line: line)
    }

    /// Runs `job` on the loop thread: at once when already there, else queued and the loop woken through its pipe.
    /// Jobs submitted after the loop stopped are dropped.
    func execute(_ job: @escaping @Sendable () -> Void) {
        if inLoop { job(); return }
        pending.withLock { state in
            guard !state.stopped else { return }
            state.jobs.append(job)
            if state.jobs.count == 1 { POSIX.signalWake(fd: wakePipe.write) }
        }
    }

    private func runPendingJobs() {
        POSIX.drainWake(fd: wakePipe.read)
        let jobs = pending.withLock { state -> [@Sendable () -> Void] in
            let jobs = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            return jobs
        }
        for job in jobs { job() }
    }

    // MARK: - Thread

    /// Starts the loop thread.
    func startThread() throws(HTTPServerError) {
        guard let thread = POSIX.spawn({ self.run() }) else { throw .threadCreationFailed }
        self.thread = thread
    }

    private func run() {
        loopThread.store(POSIX.threadID(), ordering: .releasing)
        EventLoopThread.markCurrent()
        event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        teardown()
    }

    /// Frees everything; runs on the loop thread after the loop exited.
    private func teardown() {
        // From here on no thread counts as this loop's (a later thread may get the same id).
        loopThread.store(0, ordering: .releasing)
        pending.withLock { state in
            state.stopped = true
            state.jobs.removeAll()
        }
        if let drainTimer { event_free(drainTimer) }
        if let sweepTimer { event_free(sweepTimer) }
        bindAccepted()  // so that evhttp_free below uncounts them too
        for event in signalEvents { event_free(event) }
        signalEvents.removeAll()
        for context in inFlight.values { context.markClosed() }
        inFlight.removeAll()
        evhttp_free(http)  // closes connections; close callbacks run now
        connections.removeAll()
        connectionsByDescriptor.removeAll()
        if let bindEvent { event_free(bindEvent) }
        if let rewriteEvent { event_free(rewriteEvent) }
        pendingRewrites.removeAll()
        if let wakeEvent { event_free(wakeEvent) }
        POSIX.close(fd: wakePipe.read)
        POSIX.close(fd: wakePipe.write)
        if let chunkBuffer { evbuffer_free(chunkBuffer) }
        event_base_free(base)
    }

    // MARK: - Signals

    /// Turns SIGINT/SIGTERM into `context.requestShutdown()`; call on the loop thread or before it starts.
    func installSignalEvents() {
        guard signalEvents.isEmpty else { return }
        for signum in [POSIX.sigint, POSIX.sigterm] {
            guard let event = CLibevent_evsignal_new(base, signum, { _, _, arg in
                Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().context.requestShutdown()
            }, Unmanaged.passUnretained(self).toOpaque()) else { continue }
            CLibevent_evsignal_add(event, nil)
            signalEvents.append(event)
        }
    }

    // MARK: - Timers

    /// Runs `job` once on this loop after `seconds`; call on the loop thread. Dropped if the loop exits first.
    func once(after seconds: Double, _ job: @escaping @Sendable () -> Void) {
        preconditionInLoop()
        let whole = Int(seconds.rounded(.down))
        var delay = timeval(tv_sec: whole, tv_usec: Int(((seconds - Double(whole)) * 1_000_000).rounded()))
        let box = Unmanaged.passRetained(OnceJob(job)).toOpaque()
        let added = event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, arg in
            Unmanaged<OnceJob>.fromOpaque(arg!).takeRetainedValue().job()
        }, box, &delay)
        if added != 0 { Unmanaged<OnceJob>.fromOpaque(box).release() }
    }

    // MARK: - Drain

    /// Phase one of shutdown on this loop: stop accepting, then poll until in-flight requests finish or the
    /// grace period ends, answer the rest 503 and exit the loop.
    func beginDrain(deadline: UInt64) {
        if let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)
            self.boundSocket = nil
        }
        for event in signalEvents { event_del(event) }
        drainDeadline = deadline
        drainTimer = event_new(base, -1, Int16(EV_PERSIST), { _, _, arg in
            Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().drainTick()
        }, Unmanaged.passUnretained(self).toOpaque())
        var interval = timeval(tv_sec: 0, tv_usec: 20_000)
        if let drainTimer { event_add(drainTimer, &interval) }
        drainTick()
    }

    private var drainDeadline: UInt64 = 0
    private var exiting = false

    private func drainTick() {
        guard !exiting else { return }
        let pendingReplies = inFlight.values.contains { !$0.isStreaming }
        guard !pendingReplies || Clock.nanoseconds() >= drainDeadline else { return }
        exiting = true
        for context in Array(inFlight.values) {
            if context.isStreaming {
                context.finishStream()
            } else {
                context.forceReply(ProblemDetails(status: 503, detail: "The server is shutting down.").response())
            }
        }
        if let drainTimer { event_del(drainTimer) }
        var flush = timeval(tv_sec: 0, tv_usec: 100_000)
        event_base_loopexit(base, &flush)
    }
}

extension EventLoop {
    /// Queues `connection`'s error page rewrite for later in this loop pass (before evhttp can send the page).
    func rewriteLater(_ connection: Connection) {
        pendingRewrites.append(connection)
        if pendingRewrites.count == 1, let rewriteEvent { event_active(rewriteEvent, 0, 0) }
    }

    private func runRewrites() {
        let batch = pendingRewrites
        pendingRewrites.removeAll(keepingCapacity: true)
        for connection in batch { connection.rewriteErrorPage() }
    }

    /// A complete `Connection: close` response carrying `problem` (with `headers` and the server's default
    /// fields), for answers written past evhttp (its error pages, late requests, refused connections).
    func rawProblemResponse(_ problem: ProblemDetails, version: String, headers: [(String, String)] = []) -> [UInt8] {
        let body = problem.jsonBytes
        var head = "\(version) \(problem.status) \(HTTPStatus.reasonPhrase(problem.status))\r\n"
        head += "Content-Type: application/problem+json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        head += "Date: \(date.current())\r\n"
        let configuration = context.configuration
        if !configuration.serverName.isEmpty { head += "Server: \(configuration.serverName)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        for (name, value) in configuration.defaultResponseHeaders { head += "\(name): \(value)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }
}

/// A monotonic clock in nanoseconds.
enum Clock {
    static func nanoseconds() -> UInt64 { POSIX.monotonicNanoseconds() }
}

/// A job for `event_base_once`, retained until it runs.
private final class OnceJob {
    let job: @Sendable () -> Void
    init(_ job: @escaping @Sendable () -> Void) { self.job = job }
}
