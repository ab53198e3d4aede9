import HTTPServer
import ListDeltaAccess
public import ListDeltaCore
import ListDeltaSources

/// Everything `listdelta serve` can be told, with the documented defaults.
///
/// Loaded from `Config/listdelta.json` (or `--config`), then `LISTDELTA_*` environment variables, then flags;
/// validated once at start-up (`validate()`).
public struct ServiceConfiguration: Sendable, Equatable {
    /// The address to bind. The default is `127.0.0.1`.
    public var host = "127.0.0.1"
    /// The TCP port; 0 picks a free one. The default is 8080.
    public var port = 8080
    /// The data directory holding the SQLite database. The default is `./data`.
    public var dataDirectory = "./data"
    /// A PostgreSQL database to keep revisions in, shared by every instance pointed at it:
    /// `postgres://user:password@host:port/database[?sslmode=disable|prefer|require]`. Empty keeps them in SQLite
    /// under `dataDirectory`. The default is empty.
    public var databaseURL = ""
    /// The database password, when it is not in `databaseURL` (set it in the environment,
    /// `LISTDELTA_DATABASE_PASSWORD`). The default is none.
    public var databasePassword = ""
    /// The most connections to PostgreSQL per instance (one more listens for the others' commits). The default is 10.
    public var databaseConnections = 10
    /// The longest a request waits for PostgreSQL before it is answered 503 with `Retry-After`. The default is 5.
    public var databaseTimeoutSeconds = 5.0
    /// Which hosts sources may fetch from: `public` (any public address), host-name patterns (`*.example.com`,
    /// allowed by name) and addresses or ranges (`127.0.0.1`, `10.0.0.0/8`). Loopback, private, link-local and
    /// metadata addresses are refused unless listed. The default is `["public"]`.
    public var sourceHosts = ["public"]
    /// The directory `file:` sources must lie in; empty turns file sources off. The default is empty.
    public var sourceDirectory = ""

    /// `sourceDirectory`, or `nil` when file sources are off.
    var sourceFileDirectory: String? { sourceDirectory.isEmpty ? nil : sourceDirectory }
    /// The shortest `interval` a source may have, in seconds. The default is 10.
    public var sourceMinInterval = 10
    /// The most sources attached at once (in the store, over every instance sharing it). The default is 1000.
    public var maxSources = 1000
    /// The most views at once (in the store, over every instance sharing it). The default is 1000.
    public var maxViews = 1000
    /// How often each instance looks for views behind their base (whose updater stopped, or that another release
    /// does not update), in seconds. The default is 2.
    public var viewSweepSeconds = 2.0
    /// The most distinct live queries that held polls and open streams follow at once on this instance (one more:
    /// 503). The default is 10,000.
    public var maxQueries = 10_000
    /// How long the answer to a write sent with an `Idempotency-Key` is kept with its list and replayed, in seconds.
    /// The default is 86,400 (a day).
    public var idempotencySeconds = 86_400
    /// The largest `maxItems` a source may have (never more than `maxItems`). The default is 10,000.
    public var sourceMaxItems = 10_000

    /// `sourceMaxItems`, within `maxItems`.
    var effectiveSourceMaxItems: Int { min(sourceMaxItems, maxItems) }
    /// The largest feed a fetch reads, after gzip inflation, in bytes. The default is 10 MiB.
    public var sourceMaxBytes = 10 << 20
    /// The longest one fetch (redirects included) may take, in seconds. The default is 15.
    public var sourceTimeoutSeconds = 15.0
    /// Fetches run at once per instance. The default is 4.
    public var sourceFetches = 4
    /// Revisions kept per list; older ones answer 410. The default is 1000.
    public var retention = 1000
    /// The longest long poll, in seconds; larger `wait` values are clamped. The default is 60.
    public var maxWaitSeconds = 60
    /// The length of a poll cursor's interval in seconds: a long poll whose list does not move is answered (empty)
    /// by the end of its cursor's interval at the latest, and polls' answers may be kept by shared caches for that
    /// long (`max-age`). The default is 20.
    public var cursorSeconds = 20
    /// The most lists one many-lists request (`/v1/events?lists=`, `/v1/diffs?lists=`) may name. The default is 100.
    public var maxListsPerRequest = 100
    /// Seconds between keep-alive comments on event streams. The default is 15.
    public var heartbeatSeconds = 15.0
    /// Seconds between SIGTERM and the stop during which the instance still serves but `/healthz` answers 503
    /// (`draining`), so that a load balancer polling it stops sending new requests first. The default is 0.
    public var drainSeconds = 0.0
    /// Origins allowed by CORS (`*` for any; empty turns CORS off). The default is `["*"]`.
    public var corsOrigins = ["*"]
    /// Bearer tokens accepted for writes; empty means writes need no token. The default is none.
    public var writeTokens: [String] = []
    /// The HS256 secret scoped tokens (JWTs) may be signed with, at least 32 bytes; empty for none. Set it in the
    /// environment (`LISTDELTA_JWT_SECRET`) or the file, never on a command line. The default is none.
    public var jwtSecret = ""
    /// A JWKS file of RS256/ES256 public keys scoped tokens may be signed with; empty for none. The default is none.
    public var jwtPublicKeys = ""
    /// Who may read lists: `public` (anyone) or `token` (a static token or a scoped token covering the list). The
    /// default is `public`.
    public var readAccess = "public"
    /// Allow writes without a token on a non-loopback address. The default is `false`.
    public var allowAnonymousWrites = false
    /// The largest request body, compressed or inflated, in bytes. The default is 16 MiB.
    public var maxBodyBytes = 16 << 20
    /// The most open connections; more get 503. The default is 10,000.
    public var maxConnections = 10_000
    /// The most connections one client (one address; an IPv6 client by its /64) may have open at once, loopback
    /// included; a connection beyond it is answered 429 and closed. 0 turns the limit off (behind a proxy, whose
    /// address every client shares: limit clients at the proxy). The default (`nil`) is an eighth of
    /// ``maxConnections``.
    public var maxConnectionsPerClient: Int?
    /// Seconds a request's head (request line and headers) may take to arrive from its first byte; later, 408 and
    /// the connection is closed. The default is 10.
    public var headerTimeoutSeconds = 10
    /// The most bytes an answer may leave unread in a connection's output: an event stream whose client falls
    /// further behind is ended (it resumes with `Last-Event-ID`). The default is 8 MiB.
    public var maxOutputBytes = 8 << 20
    /// The largest document a list may hold, as its stored JSON, in bytes: a write whose result is larger is
    /// refused with 413, and a JSON Patch may copy no more than this in all. The default (`nil`) is
    /// ``maxBodyBytes``.
    public var maxDocumentBytes: Int?
    /// The most operations in one JSON Patch (413 above): each may cost up to the size of the array or object it
    /// changes. The default is 1,000.
    public var maxPatchOperations = 1_000
    /// The most conditions in a view's or a query's `where`. The default is 32.
    public var maxConditions = 32
    /// The most sort keys in a view's or a query's `sort`. The default is 8.
    public var maxSortKeys = 8
    /// The most values in the array of an `in` condition. The default is 1,000.
    public var maxInValues = 1_000
    /// The most bytes of a condition's value (its compact JSON; for `in`, of each element) and of a path in a
    /// definition. The default is 1,024.
    public var maxValueBytes = 1_024
    /// The largest `PUT .../view` body, in bytes (413 above). The default is 65,536.
    public var maxDefinitionBytes = 65_536
    /// The longest a scoped token may live, from its `iat` (or from now, without one) to its `exp`, in seconds.
    /// The default is 86,400 (a day).
    public var maxTokenLifetimeSeconds = 86_400
    /// Seconds a connection may stall mid-request or idle. The default is 30.
    public var timeoutSeconds = 30
    /// Seconds a whole request (head and body) may take to arrive from its first byte; a client that trickles
    /// bytes is cut off here with 408. The default is 60.
    public var requestTimeoutSeconds = 60
    /// Event-loop threads. The default is 2.
    public var eventLoops = 2
    /// Worker threads for reads that cannot be answered from memory (the store, rebuilding revisions, diffs). The
    /// default is 4.
    public var workerThreads = 4
    /// Worker threads for writes; `0` (the default) chooses by store (``writeThreadsInUse``): SQLite has one writer,
    /// which more threads would only wait for, while a PostgreSQL write mostly waits for its round trip and writes
    /// to different lists commit in parallel.
    public var writeThreads = 0

    /// The write threads the service runs: ``writeThreads``, or by store when it is `0`: 2 on SQLite, 8 on
    /// PostgreSQL (`Benchmarks/scale-out.sh` measures both).
    public var writeThreadsInUse: Int { writeThreads > 0 ? writeThreads : (databaseURL.isEmpty ? 2 : 8) }
    /// Requests that may wait for a worker, per pool; past it a request gets 503 with `Retry-After`. The default
    /// is 1,000.
    public var maxQueuedRequests = 1_000
    /// List heads kept in memory (the most recently used). The default is 100,000.
    public var cachedLists = 100_000
    /// Memory for cached documents and rendered bodies, in bytes: half for documents, a quarter each for rendered
    /// documents and diffs, each entry charged what it holds on the heap. The default is 64 MiB (a 100,000-item
    /// document takes about 26 MB, and must fit in the documents' half to be kept).
    public var cacheBytes = 64 << 20
    /// The most sections in a list. The default is 10,000.
    public var maxSections = 10_000
    /// The most items in a list. The default is 250,000.
    public var maxItems = 250_000
    /// The deepest JSON nesting in a document. The default is 64.
    public var maxDepth = 64
    /// `fsync` every commit (SQLite `synchronous=FULL`); off still survives a killed process. The default is `true`.
    public var durableSync = true
    /// A directory holding the page's files (`index.html`, `app.js`, `style.css`, `client.js`, `openapi.yaml`) to
    /// serve instead of the built-in copies; for working on the page. The default is empty (built-in).
    public var webRoot = ""
    /// How response heads are written: `single-entry` (fewer allocations per response, used only on a libevent
    /// it was checked against, else plain) or `plain` (libevent's documented API on any version). The default is
    /// `single-entry`.
    public var responseHead = "single-entry"
    /// The log level: trace, debug, info, notice, warning, error, critical. The default is `info`.
    public var logLevel = "info"
    /// How log lines are written: `text` (one readable line each) or `json` (a JSON object per line, with `trace_id`
    /// and `span_id` while a span is active). The default is `text`.
    public var logFormat = "text"

    /// Where spans are exported (OTLP over HTTP), how they are sampled and what they say of the service; the file's
    /// `otel*` keys, the standard `OTEL_*` variables and the `--otlp-endpoint`/`--traces-sampler` flags set it.
    /// Export is off unless an endpoint is set.
    public var tracing = TracingSettings()

    /// The defaults.
    public init() {}

    /// The document limits the factory enforces.
    public var documentLimits: DocumentLimits {
        var limits = DocumentLimits()
        limits.maximumSections = maxSections
        limits.maximumItems = maxItems
        limits.maximumDepth = maxDepth
        limits.maximumDocumentBytes = documentBytesInForce
        return limits
    }

    /// ``maxDocumentBytes`` as enforced.
    public var documentBytesInForce: Int { maxDocumentBytes ?? maxBodyBytes }

    /// The limits on view and query definitions.
    public var definitionLimits: DefinitionLimits {
        var limits = DefinitionLimits()
        limits.maximumConditions = maxConditions
        limits.maximumSortKeys = maxSortKeys
        limits.maximumInValues = maxInValues
        limits.maximumValueBytes = maxValueBytes
        return limits
    }

    /// `true` when scoped tokens are configured (a secret or public keys).
    public var usesScopedTokens: Bool { !jwtSecret.isEmpty || !jwtPublicKeys.isEmpty }

    /// `true` when any credential is configured: writes then need one.
    public var hasCredentials: Bool { !writeTokens.isEmpty || usesScopedTokens }

    /// `true` when reads need a token (`readAccess: token`).
    public var privateReads: Bool { readAccess == "token" }

    /// `true` when `host` is a loopback address.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Checks the values and the write-safety rule: no anonymous writes beyond loopback unless allowed.
    /// - Throws: `ConfigurationError`.
    public func validate() throws(ConfigurationError) {
        func require(_ condition: Bool, _ message: String) throws(ConfigurationError) {
            if !condition { throw ConfigurationError(message) }
        }
        try require((0...65_535).contains(port), "port must be 0...65535")
        try require(["text", "json"].contains(logFormat), "logFormat must be text or json")
        try tracing.validate()
        try require(retention >= 1, "retention must be at least 1")
        try require(maxWaitSeconds >= 0 && maxWaitSeconds <= 3_600, "maxWaitSeconds must be 0...3600")
        try require((1...3_600).contains(cursorSeconds), "cursorSeconds must be 1...3600")
        try require((1...1_000).contains(maxListsPerRequest), "maxListsPerRequest must be 1...1000")
        try require(heartbeatSeconds > 0, "heartbeatSeconds must be positive")
        try require(drainSeconds >= 0 && drainSeconds <= 300, "drainSeconds must be 0...300")
        try require(maxBodyBytes >= 1_024, "maxBodyBytes must be at least 1024")
        try require(maxConnections >= 1, "maxConnections must be at least 1")
        try require(timeoutSeconds >= 1, "timeoutSeconds must be at least 1")
        try require(requestTimeoutSeconds >= 1, "requestTimeoutSeconds must be at least 1")
        try require((1...3_600).contains(headerTimeoutSeconds), "headerTimeoutSeconds must be 1...3600")
        try require(maxConnectionsPerClient.map { $0 >= 0 } ?? true, "maxConnectionsPerClient must be at least 0 (0: no limit)")
        try require(maxOutputBytes >= 65_536, "maxOutputBytes must be at least 65536")
        try require(maxDocumentBytes.map { $0 >= 1_024 } ?? true, "maxDocumentBytes must be at least 1024")
        try require((1...1_000_000).contains(maxPatchOperations), "maxPatchOperations must be 1...1000000")
        try require((1...1_000).contains(maxConditions), "maxConditions must be 1...1000")
        try require((1...100).contains(maxSortKeys), "maxSortKeys must be 1...100")
        try require((1...1_000_000).contains(maxInValues), "maxInValues must be 1...1000000")
        try require((16...(1 << 20)).contains(maxValueBytes), "maxValueBytes must be 16...1048576")
        try require((1_024...(16 << 20)).contains(maxDefinitionBytes), "maxDefinitionBytes must be 1024...16777216")
        try require((60...(366 * 86_400)).contains(maxTokenLifetimeSeconds), "maxTokenLifetimeSeconds must be 60...31622400")
        try require((1...64).contains(eventLoops), "eventLoops must be 1...64")
        try require(cacheBytes >= 0, "cacheBytes must not be negative")
        try require((1...256).contains(workerThreads), "workerThreads must be 1...256")
        try require((0...64).contains(writeThreads), "writeThreads must be 0...64 (0: by store)")
        try require((0...1_000_000).contains(maxQueuedRequests), "maxQueuedRequests must be 0...1000000")
        try require((1...100_000_000).contains(cachedLists), "cachedLists must be 1...100000000")
        try require(maxSections >= 1 && maxItems >= 1, "maxSections and maxItems must be at least 1")
        try require((8...512).contains(maxDepth), "maxDepth must be 8...512")
        let heads = ResponseHeadWriting.allCases.map(\.rawValue)
        try require(heads.contains(responseHead), "responseHead must be one of \(heads.joined(separator: ", "))")
        try require(!dataDirectory.isEmpty, "dataDirectory must not be empty")
        try require((1...1_000).contains(databaseConnections), "databaseConnections must be 1...1000")
        try require(databaseTimeoutSeconds > 0 && databaseTimeoutSeconds <= 300, "databaseTimeoutSeconds must be in (0, 300]")
        try require((1...86_400).contains(sourceMinInterval), "sourceMinInterval must be 1...86400")
        try require((0...1_000_000).contains(maxSources), "maxSources must be 0...1000000")
        try require((0...100_000).contains(maxViews), "maxViews must be 0...100000")
        try require((0...1_000_000).contains(maxQueries), "maxQueries must be 0...1000000")
        try require((1...31_536_000).contains(idempotencySeconds), "idempotencySeconds must be 1...31536000")
        try require(viewSweepSeconds >= 0.1 && viewSweepSeconds <= 3_600, "viewSweepSeconds must be 0.1...3600")
        try require(sourceMaxItems >= 1, "sourceMaxItems must be at least 1")
        try require((1_024...(1 << 30)).contains(sourceMaxBytes), "sourceMaxBytes must be 1024...1073741824")
        try require(sourceTimeoutSeconds > 0 && sourceTimeoutSeconds <= 300, "sourceTimeoutSeconds must be in (0, 300]")
        try require((1...64).contains(sourceFetches), "sourceFetches must be 1...64")
        do {
            _ = try HostPolicy(patterns: sourceHosts)
        } catch {
            throw ConfigurationError(error.description)
        }
        try require(!writeTokens.contains(where: \.isEmpty), "write tokens must not be empty")
        try require(["public", "token"].contains(readAccess), "readAccess must be public or token")
        let secretBytes = VerificationKeys.minimumSecretBytes
        try require(
            jwtSecret.isEmpty || jwtSecret.utf8.count >= secretBytes, "jwtSecret must be at least \(secretBytes) bytes (RFC 7518: as long as the hash)")
        try require(!privateReads || hasCredentials, "readAccess token needs a credential: writeTokens, jwtSecret or jwtPublicKeys")
        try require(
            ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel),
            "logLevel must be one of trace, debug, info, notice, warning, error, critical")
        if !hasCredentials && !isLoopback && !allowAnonymousWrites {
            throw ConfigurationError(
                "refusing to serve anonymous writes on \(host): configure a write token (LISTDELTA_WRITE_TOKENS), a JWT key (LISTDELTA_JWT_SECRET, LISTDELTA_JWT_PUBLIC_KEYS) or pass --allow-anonymous-writes")
        }
    }
}

/// A configuration that cannot be used, with the reason.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// What is wrong.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
