import CLibevent
import Metrics
import Glibc
import Logging
import Synchronization
import Tracing

/// The server side of one request.
///
/// Threading rule: `state` and `closeHandler` may be used from any thread; every other `var` and every evhttp
/// call only on `loop`'s thread.
final class RequestContext: @unchecked Sendable {
    enum State: UInt8 {
        case open = 0, claimed = 1, finished = 2, closed = 3
    }

    let loop: EventLoop
    let method: String
    let path: String
    let isHead: Bool
    let acceptsGzip: Bool
    let origin: String?
    let startNanos: UInt64
    var route = "unmatched"
    /// The route's index in the router, -1 when unmatched (the metrics key).
    var routeIndex = -1
    /// Whether the answer ends the connection (`Connection: close`).
    var closesConnection = false
    /// The request's server span, when requests are traced (``HTTPServerConfiguration/tracesRequests``).
    /// (A class reference: an untraced request's `nil` costs its context nothing to copy or destroy.)
    var traced: RequestTracing.Traced?
    let state = Atomic<UInt8>(State.open.rawValue)
    let closeHandler = Mutex<(@Sendable () -> Void)?>(nil)

    private var req: OpaquePointer?
    /// The connection, until the request completes or its client leaves (then cleared, which breaks the cycle
    /// with ``Connection/current``).
    private var connection: Connection?
    private(set) var isStreaming = false
    private var bytesSent = 0
    /// Set once a stream's client fell so far behind that the stream is being ended.
    private var overflowed = false
    private var disconnectWatch: OpaquePointer?
    private var timeoutRaised = false
    private var status = 0
    private var registered = false

    init(loop: EventLoop, req: OpaquePointer, connection: Connection, method: String, path: String, isHead: Bool,
         acceptsGzip: Bool, origin: String?, startNanos: UInt64) {
        self.loop = loop
        self.req = req
        self.connection = connection
        self.method = method
        self.path = path
        self.isHead = isHead
        self.acceptsGzip = acceptsGzip
        self.origin = origin
        self.startNanos = startNanos
        connection.current = self
    }

    /// Registers a request that is still pending after its handler returned (parked or streaming), so shutdown
    /// can find it. Requests answered at once never enter the table.
    func registerPending() {
        loop.preconditionInLoop()
        guard !registered else { return }
        registered = true
        loop.inFlight[ObjectIdentifier(self)] = self
    }

    private func unregister() {
        guard registered else { return }
        registered = false
        loop.inFlight.removeValue(forKey: ObjectIdentifier(self))
    }

    /// Claims the right to answer; false when already answered or the client is gone.
    func claim() -> Bool {
        state.compareExchange(expected: State.open.rawValue, desired: State.claimed.rawValue, ordering: .acquiringAndReleasing)
            .exchanged
    }

    /// Whether the request still waits for (the end of) its answer; loop thread only.
    var isPending: Bool { req != nil && !isClosed }

    var isClosed: Bool { state.load(ordering: .acquiring) == State.closed.rawValue }

    func markClosed() { state.store(State.closed.rawValue, ordering: .releasing) }

    // MARK: - Replies (loop thread)

    /// Sends `response` unless the client went away meanwhile.
    ///
    /// Adds `Content-Length` and `Date` itself (libevent would format both with `printf` and `strftime` for every
    /// response) and picks the body: gzip when accepted and worth it, else plain.
    func send(_ response: HTTPResponse) {
        loop.preconditionInLoop()
        guard !isClosed, let req, let output = evhttp_request_get_output_headers(req) else { return }
        let status = response.status
        var body: [UInt8]
        var gzipped = false
        var vary = false
        switch response.body {
        case .empty:
            body = []
        case .bytes(let bytes):
            // Never compressed here, on the loop: the responder compressed it already when it was answered from
            // another thread and worth it (see `HTTPResponder.respond`).
            body = bytes
            vary = bytes.count > loop.context.configuration.gzipMinimumSize && !response.headers.contains("Content-Encoding")
        case .precompressed(let plain, let gzip):
            vary = true
            gzipped = acceptsGzip
            body = gzipped ? gzip : plain
        }
        let writesLength = status >= 200 && status != 204 && status != 304 && !(isHead && body.isEmpty)
        // A HEAD or 304 answer may state the length of the body it leaves out; the handler knows it.
        var head = ResponseHead(
            into: output, date: loop.date.current(), writing: loop.context.headWriting,
            keepsContentLength: !writesLength && (isHead || status == 304))
        var hasContentType = false
        var hasCORS = false
        for field in response.headers {
            let value = gzipped && HTTPHeaders.equalsIgnoringCase(field.name, "ETag") ? EntityTag.gzipVariant(of: field.value) : field.value
            guard head.add(field.name, value) else { continue }
            if !hasContentType, HTTPHeaders.equalsIgnoringCase(field.name, "Content-Type") { hasContentType = true }
            if origin != nil, !hasCORS, HTTPHeaders.equalsIgnoringCase(field.name, "Access-Control-Allow-Origin") { hasCORS = true }
            // A handler that varies by coding itself (a cacheable answer, whatever its size) says so once.
            if vary, HTTPHeaders.equalsIgnoringCase(field.name, "Vary"), field.value.lowercased().contains("accept-encoding") { vary = false }
        }
        if vary { head.addServerField("Vary", "Accept-Encoding") }
        if gzipped { head.addServerField("Content-Encoding", "gzip") }
        if !body.isEmpty, !hasContentType { head.addServerField("Content-Type", "application/json") }
        addCommonHeaders(&head, setByResponse: response.headers, cors: !hasCORS)
        head.install()
        closeIfNeeded(output)
        if writesLength { Self.addLengthHeader(output, body.count, writing: loop.context.headWriting) }
        if !isHead, !body.isEmpty, let buffer = evhttp_request_get_output_buffer(req) {
            Self.addBody(body, to: buffer)
        }
        // withCString keeps the phrase on the stack (passing the String itself would allocate a C copy).
        HTTPStatus.reasonPhrase(status).withCString { evhttp_send_reply(req, Int32(status), $0, nil) }
        bytesSent = isHead ? 0 : body.count
        self.status = status
        complete()
    }

    /// Bodies from this size on are handed to libevent by reference, not copied.
    static let referenceThreshold = 512

    /// Appends `body` to `buffer`: large bodies by reference (the array is kept alive until libevent is done with
    /// it, so a stored document is never copied per request), small ones by copy.
    static func addBody(_ body: [UInt8], to buffer: OpaquePointer) {
        guard body.count >= referenceThreshold else {
            body.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
            return
        }
        let owner = Unmanaged.passRetained(BodyOwner(body))
        // The owner's array is immutable and retained until the cleanup runs, so its storage stays put.
        let bytes = owner.takeUnretainedValue().bytes.withUnsafeBytes { $0.baseAddress }
        let added = evbuffer_add_reference(buffer, bytes, body.count, { _, _, owner in
            if let owner { Unmanaged<BodyOwner>.fromOpaque(owner).release() }
        }, owner.toOpaque())
        if added != 0 { owner.release() }
    }

    /// Answers from the drain or the missing-reply safety net, whatever was claimed.
    func forceReply(_ response: HTTPResponse) {
        loop.preconditionInLoop()
        guard !isStreaming else { return }
        state.store(State.claimed.rawValue, ordering: .releasing)
        send(response)
    }

    /// `Server`, the default fields the response does not set itself, and CORS (unless the response has its own,
    /// as a preflight answer does).
    private func addCommonHeaders(_ head: inout ResponseHead, setByResponse fields: HTTPHeaders, cors: Bool = true) {
        let context = loop.context
        let configuration = context.configuration
        if !configuration.serverName.isEmpty {
            head.add("Server", configuration.serverName)
        }
        for (name, value) in configuration.defaultResponseHeaders where !fields.contains(name) {
            head.add(name, value)
        }
        if cors {
            context.cors.forEachResponseHeader(origin: origin) { name, value in head.add(name, value) }
        }
    }

    /// `Connection: close` (replacing any other `Connection`) when the answer ends the connection.
    private func closeIfNeeded(_ output: UnsafeMutablePointer<evkeyvalq>) {
        guard closesConnection || loop.context.isShuttingDown || connection?.overLimit == true else { return }
        evhttp_remove_header(output, "Connection")
        evhttp_add_header(output, "Connection", "close")
    }

    /// Adds `Content-Length`; in a single-entry head, its digits are written straight into the value evhttp will own.
    static func addLengthHeader(_ output: UnsafeMutablePointer<evkeyvalq>, _ length: Int, writing: ResponseHeadWriting) {
        guard writing == .singleEntry else {
            evhttp_add_header(output, "Content-Length", String(max(0, length)))
            return
        }
        guard let value = malloc(24)?.assumingMemoryBound(to: CChar.self) else { return }
        let length = max(0, length)
        var width = 1
        var rest = length / 10
        while rest > 0 {
            width += 1
            rest /= 10
        }
        value[width] = 0
        var digits = length
        for index in stride(from: width - 1, through: 0, by: -1) {
            value[index] = CChar(UInt8(ascii: "0") + UInt8(digits % 10))
            digits /= 10
        }
        LibeventCompatibility.appendOwnedField(to: output, name: "Content-Length", value: value)
    }

    // MARK: - Streams (loop thread)

    func startStream(status: Int, headers: HTTPHeaders) {
        loop.preconditionInLoop()
        guard !isClosed, let req, let output = evhttp_request_get_output_headers(req) else { return }
        var head = ResponseHead(into: output, date: loop.date.current(), writing: loop.context.headWriting, keepsContentLength: true)
        for (name, value) in headers { head.add(name, value) }
        addCommonHeaders(&head, setByResponse: headers)
        head.install()
        closeIfNeeded(output)
        Self.dropKeepAlive(req)
        isStreaming = true
        self.status = status
        HTTPStatus.reasonPhrase(status).withCString { evhttp_send_reply_start(req, Int32(status), $0) }
    }

    /// An HTTP/1.0 client cannot take chunks, and for its keep-alive request evhttp would send a stream head with
    /// `Content-Length: 0`. Without the request's `Connection: keep-alive` the stream ends with the connection
    /// instead. (For HTTP/1.1 the field changes nothing: keep-alive is its default.)
    private static func dropKeepAlive(_ req: OpaquePointer) {
        guard let input = evhttp_request_get_input_headers(req), let connection = evhttp_find_header(input, "Connection"),
            strncasecmp(connection, "keep-alive", 10) == 0
        else { return }
        evhttp_remove_header(input, "Connection")
    }

    func writeChunk(_ bytes: [UInt8]) {
        loop.preconditionInLoop()
        guard isStreaming, !isClosed, !overflowed, let req, !bytes.isEmpty, let buffer = loop.chunkBuffer else { return }
        // A HEAD, 204 or 304 stream has no body: libevent would leave the bytes in the loop's shared buffer.
        guard !isHead, status != 204, status != 304 else { return }
        if let connection, outputWouldOverflow(connection, adding: bytes.count) {
            // The client does not read what it was sent: end the stream rather than hold its events in memory
            // (an event stream's client resumes with Last-Event-ID).
            overflowed = true
            loop.context.overflowedStreams.add(1, ordering: .relaxed)
            loop.context.overflowedStreamsCounter.increment()
            loop.closeSoon(connection)
            return
        }
        bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        evhttp_send_reply_chunk(req, buffer)
        evbuffer_drain(buffer, evbuffer_get_length(buffer))
        bytesSent += bytes.count
    }

    /// Whether `count` more bytes would leave more than ``HTTPServerConfiguration/maxOutputBytes`` waiting in the
    /// connection's output (one chunk larger than the bound alone still goes).
    private func outputWouldOverflow(_ connection: Connection, adding count: Int) -> Bool {
        guard let output = bufferevent_get_output(connection.bufferEvent) else { return false }
        let waiting = evbuffer_get_length(output)
        return waiting > 0 && waiting + count > loop.context.configuration.maxOutputBytes
    }

    func finishStream() {
        loop.preconditionInLoop()
        guard isStreaming, !isClosed, let req else { return }
        // libevent may free `req`, and even the connection (running the close callback), inside
        // `evhttp_send_reply_end` when the stream is not chunked: forget it and mark it finished first.
        self.req = nil
        state.store(State.finished.rawValue, ordering: .releasing)
        evhttp_send_reply_end(req)
        complete()
    }

    // MARK: - Disconnect detection

    /// Watches the socket while the request is parked or streaming: libevent 2.1 stops reading once a request was
    /// dispatched, so a client that goes away would only be noticed on the next write.
    func watchForDisconnect() {
        loop.preconditionInLoop()
        guard disconnectWatch == nil, let req, let evcon = evhttp_request_get_connection(req),
            let bev = evhttp_connection_get_bufferevent(evcon)
        else { return }
        let fd = bufferevent_getfd(bev)
        guard fd >= 0 else { return }
        // The read/idle timeout must not end a request that waits on the app or a quiet stream.
        evhttp_connection_set_timeout(evcon, Self.parkedTimeoutSeconds)
        timeoutRaised = true
        disconnectWatch = event_new(loop.base, fd, Int16(EV_READ), { fd, _, arg in
            Unmanaged<RequestContext>.fromOpaque(arg!).takeUnretainedValue().socketReadable(fd)
        }, Unmanaged.passUnretained(self).toOpaque())
        if let disconnectWatch { event_add(disconnectWatch, nil) }
    }

    private func socketReadable(_ fd: Int32) {
        guard let disconnectWatch, let req else { return }
        switch POSIX.peerClosed(fd: fd) {
        case .none: event_add(disconnectWatch, nil)
        case .some(false): break  // pipelined data: left to libevent after this response
        case .some(true):
            if let evcon = evhttp_request_get_connection(req) { evhttp_connection_free(evcon) }  // runs the close callback
        }
    }

    private func stopWatching() {
        if let disconnectWatch { event_free(disconnectWatch) }
        disconnectWatch = nil
        if timeoutRaised, let connection, let evcon = connection.evcon, loop.connections[connection.bufferEvent] === connection {
            var idle = loop.idleTimeout
            evhttp_connection_set_timeout_tv(evcon, &idle)
        }
        timeoutRaised = false
    }

    /// The connection timeout while parked or streaming (one day).
    static let parkedTimeoutSeconds: Int32 = 86_400

    // MARK: - Completion

    private func complete() {
        if disconnectWatch != nil || timeoutRaised { stopWatching() }
        if state.load(ordering: .acquiring) != State.closed.rawValue {
            state.store(State.finished.rawValue, ordering: .releasing)
        }
        req = nil
        if let connection, connection.current === self { connection.requestFinished() }
        connection = nil
        unregister()
        let elapsed = Clock.nanoseconds() &- startNanos
        loop.metrics.record(routeIndex: routeIndex, route: route, method: method, status: status, nanoseconds: elapsed)
        if loop.logsRequests {
            // Logged in the request's span, so that a log line that carries trace ids carries this request's.
            ServiceContext.$current.withValue(traced?.span.context) {
                loop.context.logger.info(
                    "\(method) \(path) \(status) \(bytesSent)B \(elapsed / 1000)us",
                    metadata: ["route": "\(route)"])
            }
        }
        endSpan()
    }

    /// Ends the request's span, if it has one, with the status it ended with; once.
    private func endSpan() {
        guard let traced else { return }
        self.traced = nil
        RequestTracing.end(traced.span, status: status, bytesSent: bytesSent)
    }

    /// The close callback saw the connection go while this request was pending or streaming.
    func clientClosed() {
        loop.preconditionInLoop()
        let previous = state.exchange(State.closed.rawValue, ordering: .acquiringAndReleasing)
        guard previous != State.finished.rawValue else { return }
        stopWatching()
        if let req, evhttp_request_get_connection(req) == nil {
            evhttp_request_free(req)  // orphaned by libevent: ours to free
        }
        req = nil
        connection = nil
        status = 499
        unregister()
        endSpan()
        let elapsed = Clock.nanoseconds() &- startNanos
        if loop.logsRequests {
            loop.context.logger.info("\(method) \(path) client closed after \(elapsed / 1000)us", metadata: ["route": "\(route)"])
        }
        if let handler = closeHandler.withLock({ handler -> (@Sendable () -> Void)? in
            let h = handler
            handler = nil
            return h
        }) {
            handler()
        }
    }
}

/// Keeps a body alive while libevent holds a reference to its bytes.
final class BodyOwner {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
}
