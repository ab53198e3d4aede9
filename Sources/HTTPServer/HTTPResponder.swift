/// The handle a handler answers through.
///
/// Exactly one of ``respond(_:)`` / ``startStream(status:headers:)`` may be used, once. Callable from any thread:
/// off the owning loop thread the work hops to it through the loop's wake pipe. After the client went away it is a
/// no-op that returns `false`. A responder dropped without answering sends a 500 problem.
public final class HTTPResponder: Sendable {
    let context: RequestContext

    init(context: RequestContext) { self.context = context }

    deinit {
        let context = self.context
        guard context.claim() else { return }
        context.loop.execute {
            context.forceReply(ProblemDetails(status: 500, detail: "The handler did not answer.").response())
        }
    }

    /// Sends `response`.
    /// - Returns: `false` when a response was already sent or the client is gone.
    @discardableResult
    public func respond(_ response: HTTPResponse) -> Bool {
        let context = self.context
        guard context.claim() else { return false }
        if context.loop.inLoop {
            context.send(response)
        } else {
            context.loop.execute { context.send(response) }
        }
        return true
    }

    /// Starts a chunked streaming response (for example `text/event-stream`); the server never compresses it.
    /// - Returns: The stream, or `nil` when already answered or the client is gone.
    public func startStream(status: Int, headers: HTTPHeaders) -> HTTPStream? {
        let context = self.context
        guard context.claim() else { return nil }
        context.loop.execute { context.startStream(status: status, headers: headers) }
        return HTTPStream(context: context)
    }

    /// Registers `handler`, called once on the loop thread if the client disconnects before the response completed
    /// (parked or streaming). Registering after the disconnect calls it soon.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let context = self.context
        context.closeHandler.withLock { $0 = handler }
        if context.isClosed {
            context.loop.execute {
                if let h = context.closeHandler.withLock({ h -> (@Sendable () -> Void)? in defer { h = nil }; return h }) { h() }
            }
        }
    }

    /// Whether the client disconnected before the response completed.
    public var isClosed: Bool { context.isClosed }
}

/// A chunked response in progress; every write is handed to the socket at once.
public final class HTTPStream: Sendable {
    let context: RequestContext

    init(context: RequestContext) { self.context = context }

    /// Sends `bytes` as one chunk.
    /// - Returns: `false` once the stream is finished or the client is gone.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let context = self.context
        guard context.state.load(ordering: .acquiring) == RequestContext.State.claimed.rawValue else { return false }
        context.loop.execute { context.writeChunk(bytes) }
        return true
    }

    /// Ends the stream (the terminating chunk). Idempotent.
    public func finish() {
        let context = self.context
        context.loop.execute { context.finishStream() }
    }

    /// Whether the client disconnected.
    public var isClosed: Bool { context.isClosed }
}
