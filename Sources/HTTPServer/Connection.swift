import CLibevent

/// One accepted client connection; loop-confined.
///
/// The accept hook (`evhttp_set_bevcb`) creates it with the connection's bufferevent, so it is counted against
/// ``HTTPServerConfiguration/maxConnections`` from accept until libevent's close callback, whether or not a
/// request ever arrives. It knows when the request being received began (for the whole-request deadline) and
/// which request is being answered, and it watches its output for evhttp's own HTML error pages
/// (see `Connection+ErrorPages.swift`).
///
/// Watch states, each costing no callback on the usual path:
/// - idle: the input watch is on (the first byte of a request starts its deadlines), the output watch off;
/// - receiving: the output watch on (anything written now comes from evhttp itself), and the input watch on
///   until the head's end arrived (usually with the first bytes, so at once off);
/// - answering: both off (the output is ours).
final class Connection {
    unowned let loop: EventLoop
    let bufferEvent: OpaquePointer
    /// The socket, once a request looked the connection up (see `EventLoop.connection(for:)`); -1 before.
    var descriptor: Int32 = -1
    /// The `evhttp_connection`, bound right after accept.
    private(set) var evcon: OpaquePointer?
    /// Whether it was over the connection limit when accepted (every answer then closes it).
    let overLimit: Bool
    /// Whether it was over the hard cap when accepted (closed as soon as it is bound).
    let overHardCap: Bool
    /// The request being answered on this connection (HTTP/1.1 answers one at a time).
    var current: RequestContext?
    /// When the first byte of the request being received arrived (monotonic ns); `nil` while idle or answering.
    private(set) var receivingSince: UInt64?
    /// Where the head of the request being received ends, found as its bytes arrive.
    private var head = RequestHeadScanner()
    /// The client it counts against (``HTTPServerConfiguration/maxConnectionsPerClient``), once admitted.
    var client: ClientKey?
    private var inputWatch: OpaquePointer?
    private var outputWatch: OpaquePointer?
    /// Where evhttp's error page being written starts in the output, if one is (see `Connection+ErrorPages`).
    var errorPageStart: Int?
    /// Set while the output is being replaced, so the watch ignores our own writes.
    var rewritingErrorPage = false
    /// False once libevent closed it.
    private(set) var isOpen = true
    private var peer: String?

    /// - Parameter openConnections: The server's open connections, this one included, when it was accepted.
    init(loop: EventLoop, bufferEvent: OpaquePointer, openConnections: Int) {
        self.loop = loop
        self.bufferEvent = bufferEvent
        let configuration = loop.context.configuration
        self.overLimit = openConnections > configuration.maxConnections
        self.overHardCap = openConnections > configuration.connectionHardCap
    }

    /// The peer as `host:port`.
    var remoteAddress: String {
        if let peer { return peer }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        if let evcon { evhttp_connection_get_peer(evcon, &address, &port) }
        let text = "\(address.map { String(cString: $0) } ?? "?"):\(port)"
        peer = text
        return text
    }

    // MARK: - Lifecycle

    /// Adds the input and output watches (idle state); called by the accept hook.
    func startWatching() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        inputWatch = evbuffer_add_cb(bufferevent_get_input(bufferEvent), { buffer, info, arg in
            guard let buffer, let info, info.pointee.n_added > 0, let arg else { return }
            Unmanaged<Connection>.fromOpaque(arg).takeUnretainedValue().inputGrew(buffer, added: info.pointee.n_added)
        }, me)
        outputWatch = evbuffer_add_cb(bufferevent_get_output(bufferEvent), { buffer, info, arg in
            guard let buffer, let info, info.pointee.n_added > 0, let arg else { return }
            Unmanaged<Connection>.fromOpaque(arg).takeUnretainedValue().outputGrew(buffer, previousLength: info.pointee.orig_size)
        }, me)
        setWatches(input: true, output: false)
    }

    /// Binds the `evhttp_connection` evhttp made around our bufferevent and sets the close callback.
    func bind(_ evcon: OpaquePointer) {
        self.evcon = evcon
        evhttp_connection_set_closecb(evcon, { _, arg in
            guard let arg else { return }
            let connection = Unmanaged<Connection>.fromOpaque(arg).takeUnretainedValue()
            withExtendedLifetime(connection) { connection.closed() }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Removes the watches; the bufferevent must still be alive.
    func stopWatching() {
        if let inputWatch { evbuffer_remove_cb_entry(bufferevent_get_input(bufferEvent), inputWatch) }
        if let outputWatch { evbuffer_remove_cb_entry(bufferevent_get_output(bufferEvent), outputWatch) }
        inputWatch = nil
        outputWatch = nil
    }

    /// libevent's close callback: stop watching, uncount, and tell a pending request its client is gone.
    private func closed() {
        isOpen = false
        stopWatching()
        receivingSince = nil
        if let request = current {
            current = nil
            request.clientClosed()
        }
        if let client {
            self.client = nil
            loop.context.clients.release(client)
        }
        loop.forget(self)
    }

    // MARK: - Request states

    /// Bytes arrived: the first of a request start its clocks; later ones are read for the head's end.
    private func inputGrew(_ buffer: OpaquePointer, added: Int) {
        if receivingSince == nil {
            guard current == nil else { return }
            beginReceiving(buffer)
        } else if !head.isComplete {
            let length = evbuffer_get_length(buffer)
            scanHead(buffer, from: length - min(added, length))
        }
    }

    /// The first bytes of a request (all of `buffer`) arrived: its clocks start, and its head is looked for.
    private func beginReceiving(_ buffer: OpaquePointer) {
        receivingSince = Clock.nanoseconds()
        head = RequestHeadScanner()
        scanHead(buffer, from: 0)
    }

    /// Reads `buffer` from `offset` on for the head's end; the input watch stays on until it is found.
    private func scanHead(_ buffer: OpaquePointer, from offset: Int) {
        var position = evbuffer_ptr()
        if evbuffer_ptr_set(buffer, &position, offset, EVBUFFER_PTR_SET) == 0 {
            let count = evbuffer_get_length(buffer) - offset
            var chunks = [iovec](repeating: iovec(), count: 8)
            var needed = Int(evbuffer_peek(buffer, count, &position, &chunks, Int32(chunks.count)))
            if needed > chunks.count {
                chunks = [iovec](repeating: iovec(), count: needed)
                needed = Int(evbuffer_peek(buffer, count, &position, &chunks, Int32(chunks.count)))
            }
            var left = count
            for chunk in chunks.prefix(needed) where left > 0 && !head.isComplete {
                let length = min(chunk.iov_len, left)
                head.scan(UnsafeRawBufferPointer(start: chunk.iov_base, count: length))
                left -= length
            }
        }
        setWatches(input: !head.isComplete, output: true)
    }

    /// Whether the head of the request being received has been arriving for longer than `limit` (monotonic ns)
    /// without its end.
    func headIsLate(now: UInt64, limit: UInt64) -> Bool {
        guard let since = receivingSince, !head.isComplete else { return false }
        return now &- since > limit
    }

    /// evhttp read a whole request and hands it to us: its deadlines end and the output is ours.
    func dispatched() {
        receivingSince = nil
        setWatches(input: false, output: false)
    }

    /// The answer to `current` was handed to evhttp (or its client left): back to idle, or to receiving when the
    /// next (pipelined) request's bytes are already buffered.
    func requestFinished() {
        current = nil
        let input = bufferevent_get_input(bufferEvent)
        if let input, evbuffer_get_length(input) > 0 {
            beginReceiving(input)
        } else {
            receivingSince = nil
            setWatches(input: true, output: false)
        }
    }

    private func setWatches(input: Bool, output: Bool) {
        let enabled = UInt32(EVBUFFER_CB_ENABLED)
        if let inputWatch {
            let buffer = bufferevent_get_input(bufferEvent)
            _ = input ? evbuffer_cb_set_flags(buffer, inputWatch, enabled) : evbuffer_cb_clear_flags(buffer, inputWatch, enabled)
        }
        if let outputWatch {
            let buffer = bufferevent_get_output(bufferEvent)
            _ = output ? evbuffer_cb_set_flags(buffer, outputWatch, enabled) : evbuffer_cb_clear_flags(buffer, outputWatch, enabled)
        }
    }

    /// Whether an answer is still in the output buffer, waiting to be sent.
    var isSendingAnswer: Bool { evbuffer_get_length(bufferevent_get_output(bufferEvent)) > 0 }

    func restartRequestClock(at now: UInt64) {
        if receivingSince != nil { receivingSince = now }
    }

    // MARK: - Ending

    /// Ends a connection whose request (or its head) did not arrive within its deadline: a best-effort 408
    /// problem saying which, then close.
    func abandonLateRequest(_ detail: String) {
        guard let evcon else { return }
        sendProblemNow(ProblemDetails(status: 408, detail: detail))
        evhttp_connection_free(evcon)  // runs the close callback
    }

    /// Refuses a connection its client may not open (over ``HTTPServerConfiguration/maxConnectionsPerClient``):
    /// a best-effort 429 problem with `Retry-After`, then close, before it is bound to a request.
    func refuseOverClientLimit() {
        sendProblemNow(
            ProblemDetails(
                status: 429,
                detail: "Too many connections from your address: at most \(loop.context.clients.limit) at once. Reuse a connection."),
            headers: [("Retry-After", "1")])
        close()
    }

    /// Writes a `Connection: close` problem answer straight to the socket, past evhttp, when nothing else waits in
    /// the output.
    private func sendProblemNow(_ problem: ProblemDetails, headers: [(String, String)] = []) {
        let fd = bufferevent_getfd(bufferEvent)
        guard fd >= 0, evbuffer_get_length(bufferevent_get_output(bufferEvent)) == 0 else { return }
        POSIX.sendNow(fd: fd, loop.rawProblemResponse(problem, version: "HTTP/1.1", headers: headers))
    }

    /// Ends the connection once the answer to `req` is written. evhttp keeps a CONNECT's connection open (for a
    /// tunnel) even when the answer says `Connection: close`.
    func closeOnceAnswered(_ req: OpaquePointer) {
        // The callback runs only while evhttp still holds the connection (it frees the request, callback unused,
        // with a connection that closes first), so the connection is alive then.
        evhttp_request_set_on_complete_cb(req, { _, arg in
            guard let arg else { return }
            let connection = Unmanaged<Connection>.fromOpaque(arg).takeUnretainedValue()
            // evhttp is still finishing the request: close in the next loop pass.
            connection.loop.closeSoon(connection)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Closes at once (the close callback still runs).
    func close() {
        if let evcon { evhttp_connection_free(evcon) }
    }
}
