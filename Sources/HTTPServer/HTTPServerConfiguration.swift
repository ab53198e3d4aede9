/// Settings of an ``HTTPServer``; every property has a default.
public struct HTTPServerConfiguration: Sendable {
    // MARK: - Binding

    /// The address to bind. The default is `"127.0.0.1"`.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (read it back from ``HTTPServer/port``). The default is 8080.
    public var port = 8080
    /// The number of loop threads, each with its own `SO_REUSEPORT` listener. The default is 2.
    public var eventLoops = 2

    // MARK: - Limits

    /// The largest request body accepted as sent, in bytes (413 above). The default is 8 MiB.
    ///
    /// libevent itself is given twice this value (plus 1 KiB) as a hard cap: bodies between the two are read and
    /// answered with a 413 problem by the server; above the hard cap libevent reads and discards the body and
    /// refuses it, and its answer is rewritten into the same 413 problem.
    public var maxBodySize = 8 * 1024 * 1024
    /// The largest body after gzip inflation, in bytes (413 above). The default is 8 MiB.
    public var maxInflatedBodySize = 8 * 1024 * 1024
    /// The largest request line plus headers, in bytes (enforced by libevent). The default is 16 KiB.
    public var maxHeadersSize = 16 * 1024
    /// The longest request target, in bytes (414 above). The default is 8 KiB.
    public var maxURILength = 8 * 1024
    /// Connections open at once, counted from accept. A request on a connection beyond it gets 503 with
    /// `Connection: close`; beyond ``connectionHardCap`` a connection is closed as soon as it is accepted.
    /// The default is 10 000.
    public var maxConnections = 10_000
    /// Idle/read timeout in seconds (`evhttp_set_timeout`): how long a connection may stay idle, or stall
    /// mid-request, without sending a byte. The default is 30.
    public var timeoutSeconds = 30
    /// The deadline for a whole request (head and body) from its first byte, in seconds: a client that trickles
    /// bytes keeps the idle timeout from firing, not this one. A late request gets a 408 problem and its
    /// connection is closed. The default is 60.
    public var requestTimeoutSeconds = 60

    /// Connections one client (one peer address; IPv6 peers by their /64 network) may have open at once,
    /// loopback peers included. A connection beyond it is answered at once with a 429 problem and closed, and is
    /// never counted against ``maxConnections``. `nil` (the default) is an eighth of ``maxConnections`` (at least
    /// 1); 0 turns the limit off (behind a proxy, whose one address every client shares: use the proxy's own
    /// per-client limits there).
    public var maxConnectionsPerClient: Int?
    /// The deadline for a request's head (request line and header fields) from its first byte, in seconds: a
    /// client that trickles its head is answered 408 and its connection closed. The body then has the rest of
    /// ``requestTimeoutSeconds``. The default is 10.
    public var headerTimeoutSeconds = 10
    /// The most bytes an answer may leave waiting in a connection's output for a client that does not read: an
    /// event stream whose next chunk would pass it is ended (its client resumes with `Last-Event-ID`). One chunk
    /// larger than this is still sent whole when nothing else waits. The default is 8 MiB.
    public var maxOutputBytes = 8 * 1024 * 1024

    /// The listen backlog of each loop's socket: connections the kernel completes before the loop accepts them
    /// (the kernel caps it at `net.core.somaxconn`), the smaller of ``maxConnections`` and 4096. A burst larger
    /// than it has its SYNs dropped, which a proxy counts as a failed connect: when one of two instances stops,
    /// several hundred clients arrive at the other at once, and libevent's own default (128) turned that into
    /// "no live upstreams" at nginx.
    public var listenBacklog: Int32 { Int32(clamping: max(1, min(maxConnections, 4096))) }

    /// The most connections kept open: ``maxConnections`` plus an eighth (at least 16) for answering 503.
    public var connectionHardCap: Int { maxConnections + max(16, maxConnections / 8) }

    /// ``maxConnectionsPerClient`` as enforced: 0 when off.
    public var connectionsPerClientInForce: Int { maxConnectionsPerClient ?? max(1, maxConnections / 8) }

    // MARK: - Encoding and CORS

    /// `.bytes` bodies larger than this (bytes) are gzip'd per request when the client accepts it. The default is 1024.
    public var gzipMinimumSize = 1024
    /// Origins allowed by CORS; `["*"]` allows any, empty turns CORS off. The default is `["*"]`.
    public var corsAllowedOrigins: [String] = ["*"]
    /// `Access-Control-Max-Age` of preflight answers, in seconds. The default is 600.
    /// (`Access-Control-Allow-Methods` lists the methods the router serves, `HEAD` and `OPTIONS` included.)
    public var corsMaxAgeSeconds = 600
    /// The response fields a cross-origin script may read (`Access-Control-Expose-Headers`), beyond the
    /// CORS-safelisted ones. The default is none.
    public var corsExposedHeaders: [String] = []
    /// The request fields a cross-origin script may send (`Access-Control-Allow-Headers` of preflight answers),
    /// beyond the CORS-safelisted ones. The default is none.
    public var corsAllowedHeaders: [String] = []

    // MARK: - Lifecycle

    /// How long in-flight deferred requests may take to finish after ``HTTPServer/shutdown()``, in seconds,
    /// before they are answered 503. The default is 10.
    public var shutdownGraceSeconds = 10.0
    /// How long the server keeps serving after a shutdown is requested (SIGTERM, ``HTTPServer/shutdown()``) before
    /// it stops accepting, in seconds: time for a load balancer that polls a readiness check to take the instance
    /// out of rotation (``HTTPServer/onDrain`` tells the app when it begins). A second request stops at once. The default
    /// is 0: stop accepting at once, which a proxy that retries refused connections (nginx) needs no more than.
    public var drainSeconds = 0.0
    /// How response heads are written: ``ResponseHeadWriting/singleEntry`` (the default) where the running
    /// libevent is one ``LibeventCompatibility`` was checked against, else ``ResponseHeadWriting/plain``; `.plain`
    /// forces the documented API everywhere. ``HTTPServer/responseHeadWriting`` tells which one runs.
    public var responseHeadWriting = ResponseHeadWriting.singleEntry
    /// The `Server` header value; empty (the default) omits it, one header line less per response.
    public var serverName = ""
    /// Fields every answer carries (security headers such as `X-Content-Type-Options`), each unless the answer
    /// sets a field of that name itself (a page sets its own `Content-Security-Policy`). Problem answers written
    /// past evhttp (408, 429) carry them too. The default is none.
    public var defaultResponseHeaders: [(name: String, value: String)] = []

    /// Whether every request gets a server span from the bootstrapped tracer (OpenTelemetry's HTTP conventions),
    /// continuing the trace of its `traceparent`, current while its handler runs. Off, nothing is read or started.
    public var tracesRequests = false
    /// Paths whose requests get no span even then (a health check, a metrics scrape: a trace each, every few
    /// seconds, that says nothing).
    public var untracedPaths: Set<String> = []
    /// The share (0...1) of requests that start a trace of their own: decided here, before the tracer is asked, so
    /// a request that is not kept costs nothing. A request that carries a `traceparent` is left to the tracer's
    /// parent-based sampler when ``traceFollowsParent`` (and counted in the share like the others when not).
    public var traceRootRatio = 1.0
    /// Whether a request that carries a `traceparent` follows its caller's decision.
    public var traceFollowsParent = true

    /// Creates the default configuration.
    public init() {}

    func validate() throws(HTTPServerError) {
        if eventLoops < 1 { throw .invalidConfiguration("eventLoops") }
        if port < 0 || port > 65535 { throw .invalidConfiguration("port") }
        if maxBodySize < 0 { throw .invalidConfiguration("maxBodySize") }
        if maxInflatedBodySize < 0 { throw .invalidConfiguration("maxInflatedBodySize") }
        if maxHeadersSize < 256 { throw .invalidConfiguration("maxHeadersSize") }
        if maxURILength < 1 { throw .invalidConfiguration("maxURILength") }
        if maxConnections < 1 { throw .invalidConfiguration("maxConnections") }
        if timeoutSeconds < 1 { throw .invalidConfiguration("timeoutSeconds") }
        if requestTimeoutSeconds < 1 { throw .invalidConfiguration("requestTimeoutSeconds") }
        if headerTimeoutSeconds < 1 { throw .invalidConfiguration("headerTimeoutSeconds") }
        if let perClient = maxConnectionsPerClient, perClient < 0 { throw .invalidConfiguration("maxConnectionsPerClient") }
        if maxOutputBytes < 1024 { throw .invalidConfiguration("maxOutputBytes") }
        if shutdownGraceSeconds < 0 { throw .invalidConfiguration("shutdownGraceSeconds") }
        if drainSeconds < 0 { throw .invalidConfiguration("drainSeconds") }
    }
}
