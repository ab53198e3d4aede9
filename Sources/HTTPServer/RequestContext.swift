import CLibevent
import Logging
import Synchronization

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
    let state = Atomic<UInt8>(State.open.rawValue)
    let closeHandler = Mutex<(@Sendable () -> Void)?>(nil)

    private var req: OpaquePointer?
    private weak var connection: Connection?
    private(set) var isStreaming = false
    private var bytesSent = 0
    private var disconnectWatch: OpaquePointer?
    private var timeoutRaised = false
    private var status = 0

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
        loop.inFlight[ObjectIdentifier(self)] = self
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
    func send(_ response: HTTPResponse) {
        guard !isClosed, let req else { return }
        let body = encode(response, into: req)
        if !body.isEmpty {
            if isHead {
                if response.status != 204 && response.status != 304 {
                    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Length", String(body.count))
                }
            } else {
                body.withUnsafeBytes { _ = evbuffer_add(evhttp_request_get_output_buffer(req), $0.baseAddress, $0.count) }
            }
        }
        evhttp_send_reply(req, Int32(response.status), HTTPStatus.reasonPhrase(response.status), nil)
        bytesSent = isHead ? 0 : body.count
        status = response.status
        complete()
    }

    /// Answers from the drain or the missing-reply safety net, whatever was claimed.
    func forceReply(_ response: HTTPResponse) {
        guard !isStreaming else { return }
        state.store(State.claimed.rawValue, ordering: .releasing)
        send(response)
    }

    /// Adds headers and picks the body bytes (gzip or plain).
    private func encode(_ response: HTTPResponse, into req: OpaquePointer) -> [UInt8] {
        let config = loop.context.configuration
        var headers = response.headers
        var body: [UInt8]
        switch response.body {
        case .empty:
            body = []
        case .bytes(let bytes):
            body = bytes
            if bytes.count > config.gzipMinimumSize, headers["Content-Encoding"] == nil {
                headers.add("Vary", "Accept-Encoding")
                if acceptsGzip, let gzip = try? Gzip.compress(bytes), gzip.count < bytes.count {
                    body = gzip
                    headers["Content-Encoding"] = "gzip"
                    Self.tagAsGzip(&headers)
                }
            }
        case .precompressed(let plain, let gzip):
            headers.add("Vary", "Accept-Encoding")
            if acceptsGzip {
                body = gzip
                headers["Content-Encoding"] = "gzip"
                Self.tagAsGzip(&headers)
            } else {
                body = plain
            }
        }
        if !body.isEmpty, headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        writeCommonHeaders(&headers)
        let output = evhttp_request_get_output_headers(req)
        for (name, value) in headers { evhttp_add_header(output, name, value) }
        return body
    }

    /// One strong ETag per coding (RFC 9110): a gzip'd body's tag gets a `-gzip` suffix inside the quotes.
    static func tagAsGzip(_ headers: inout HTTPHeaders) {
        guard let tag = headers["ETag"], tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 else { return }
        headers["ETag"] = String(tag.dropLast()) + "-gzip\""
    }

    private func writeCommonHeaders(_ headers: inout HTTPHeaders) {
        let context = loop.context
        if !context.configuration.serverName.isEmpty, headers["Server"] == nil {
            headers["Server"] = context.configuration.serverName
        }
        context.cors.apply(origin: origin, to: &headers)
        if context.isShuttingDown || connection?.overLimit == true { headers["Connection"] = "close" }
    }

    // MARK: - Streams (loop thread)

    func startStream(status: Int, headers: HTTPHeaders) {
        guard !isClosed, let req else { return }
        var headers = headers
        writeCommonHeaders(&headers)
        let output = evhttp_request_get_output_headers(req)
        for (name, value) in headers { evhttp_add_header(output, name, value) }
        isStreaming = true
        self.status = status
        evhttp_send_reply_start(req, Int32(status), HTTPStatus.reasonPhrase(status))
    }

    func writeChunk(_ bytes: [UInt8]) {
        guard isStreaming, !isClosed, let req, !bytes.isEmpty, let buffer = loop.chunkBuffer else { return }
        bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        evhttp_send_reply_chunk(req, buffer)
        bytesSent += bytes.count
    }

    func finishStream() {
        guard isStreaming, !isClosed, let req else { return }
        evhttp_send_reply_end(req)
        state.store(State.finished.rawValue, ordering: .releasing)
        complete()
    }

    // MARK: - Disconnect detection

    /// Watches the socket while the request is parked or streaming: libevent 2.1 stops reading once a request was
    /// dispatched, so a client that goes away would only be noticed on the next write.
    func watchForDisconnect() {
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
        if timeoutRaised, let connection, loop.connections[connection.evcon] === connection {
            evhttp_connection_set_timeout(connection.evcon, Int32(loop.context.configuration.timeoutSeconds))
        }
        timeoutRaised = false
    }

    /// The connection timeout while parked or streaming (one day).
    static let parkedTimeoutSeconds: Int32 = 86_400

    // MARK: - Completion

    private func complete() {
        stopWatching()
        if state.load(ordering: .acquiring) != State.closed.rawValue {
            state.store(State.finished.rawValue, ordering: .releasing)
        }
        req = nil
        if connection?.current === self { connection?.current = nil }
        loop.inFlight.removeValue(forKey: ObjectIdentifier(self))
        let elapsed = Clock.nanoseconds() &- startNanos
        loop.metrics.record(route: route, method: method, status: status, nanoseconds: elapsed)
        loop.context.logger.info(
            "\(method) \(path) \(status) \(bytesSent)B \(elapsed / 1000)us",
            metadata: ["route": "\(route)"])
    }

    /// The close callback saw the connection go while this request was pending or streaming.
    func clientClosed() {
        let previous = state.exchange(State.closed.rawValue, ordering: .acquiringAndReleasing)
        guard previous != State.finished.rawValue else { return }
        stopWatching()
        if let req, evhttp_request_get_connection(req) == nil {
            evhttp_request_free(req)  // orphaned by libevent: ours to free
        }
        req = nil
        status = 499
        loop.inFlight.removeValue(forKey: ObjectIdentifier(self))
        let elapsed = Clock.nanoseconds() &- startNanos
        loop.context.logger.info("\(method) \(path) client closed after \(elapsed / 1000)us", metadata: ["route": "\(route)"])
        if let handler = closeHandler.withLock({ handler -> (@Sendable () -> Void)? in
            let h = handler
            handler = nil
            return h
        }) {
            handler()
        }
    }
}
