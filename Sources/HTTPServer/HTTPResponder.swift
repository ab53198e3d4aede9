import Synchronization

/// What a handler answers a request through: the server's socket-bound ``HTTPResponder``, or any other
/// implementation (an in-memory recorder in a test, a proxy), so that handlers run without sockets.
///
/// Exactly one of ``respond(_:)`` / ``startStream(status:headers:)`` takes effect, once; implementations are
/// callable from any thread.
public protocol HTTPResponding: Sendable {
    /// Sends `response`.
    /// - Returns: `false` when a response was already sent or the client is gone.
    @discardableResult
    func respond(_ response: HTTPResponse) -> Bool

    /// Starts a chunked streaming response (for example `text/event-stream`), never compressed.
    /// - Returns: The stream, or `nil` when already answered or the client is gone.
    func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPStreaming)?

    /// Registers `handler`, called once if the client disconnects before the response completed (parked or
    /// streaming). Registering after the disconnect calls it soon.
    func onClose(_ handler: @escaping @Sendable () -> Void)

    /// Whether the client disconnected before the response completed.
    var isClosed: Bool { get }
}

/// A streaming response in progress (see ``HTTPResponding/startStream(status:headers:)``).
public protocol HTTPStreaming: Sendable {
    /// Sends `bytes` as one chunk.
    /// - Returns: `false` once the stream is finished or the client is gone.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool

    /// Ends the stream. Idempotent.
    func finish()

    /// Whether the client disconnected.
    var isClosed: Bool { get }
}

/// The server's responder: one request on one connection of one event loop.
///
/// Callable from any thread: off the owning loop thread the work hops to it through the loop's wake pipe, and a
/// plain body worth compressing is gzip'd on the calling thread first, so that the loop itself never compresses
/// (see ``HTTPResponseBody/bytes(_:)``). After the client went away it is a no-op that returns `false`. A
/// responder dropped without answering sends a 500 problem.
public final class HTTPResponder: HTTPResponding {
    let context: RequestContext

    init(context: RequestContext) { self.context = context }

    deinit {
        let context = self.context
        guard context.claim() else { return }
        context.loop.execute {
            context.forceReply(ProblemDetails(status: 500, detail: "The handler did not answer.").response())
        }
    }

    @discardableResult
    public func respond(_ response: HTTPResponse) -> Bool {
        let context = self.context
        guard context.claim() else { return false }
        if context.loop.inLoop {
            context.send(response)
        } else {
            let minimum = context.loop.context.configuration.gzipMinimumSize
            let response = context.acceptsGzip ? response.compressingBody(above: minimum) : response
            context.loop.execute { context.send(response) }
        }
        return true
    }

    public func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPStreaming)? {
        let context = self.context
        guard context.claim() else { return nil }
        context.loop.execute { context.startStream(status: status, headers: headers) }
        return HTTPStream(context: context)
    }

    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let context = self.context
        context.closeHandler.withLock { $0 = handler }
        if context.isClosed {
            context.loop.execute {
                if let h = context.closeHandler.withLock({ h -> (@Sendable () -> Void)? in defer { h = nil }; return h }) { h() }
            }
        }
    }

    public var isClosed: Bool { context.isClosed }
}

/// The server's chunked response in progress; every write is handed to the socket at once.
public final class HTTPStream: HTTPStreaming {
    let context: RequestContext

    init(context: RequestContext) { self.context = context }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let context = self.context
        guard context.state.load(ordering: .acquiring) == RequestContext.State.claimed.rawValue else { return false }
        context.loop.execute { context.writeChunk(bytes) }
        return true
    }

    public func finish() {
        let context = self.context
        context.loop.execute { context.finishStream() }
    }

    public var isClosed: Bool { context.isClosed }
}
