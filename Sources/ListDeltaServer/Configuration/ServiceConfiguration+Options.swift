public import HTTPServer
public import ListDeltaApplication
import ListDeltaEngine
public import ListDeltaService

/// What each layer is handed from the configuration: a narrow options value each, built here and nowhere else.
extension ServiceConfiguration {
    /// The application's options: bounds, caches, pools, sources and views.
    public var applicationOptions: ApplicationOptions {
        var options = ApplicationOptions()
        options.documentLimits = documentLimits
        options.definitionLimits = definitionLimits
        options.maximumDepth = maxDepth
        options.cacheBytes = cacheBytes
        options.cachedLists = cachedLists
        options.readThreads = workerThreads
        options.writeThreads = writeThreadsInUse
        options.maximumQueuedJobs = maxQueuedRequests
        options.sources.hosts = sourceHosts
        options.sources.fileDirectory = sourceFileDirectory
        options.sources.minimumInterval = sourceMinInterval
        options.sources.maximumItems = effectiveSourceMaxItems
        options.sources.maximumSources = maxSources
        options.sources.maximumBytes = sourceMaxBytes
        options.sources.timeoutSeconds = sourceTimeoutSeconds
        options.sources.concurrentFetches = sourceFetches
        options.maximumViews = maxViews
        options.viewSweepSeconds = viewSweepSeconds
        options.maximumQueries = maxQueries
        options.idempotencySeconds = idempotencySeconds
        return options
    }

    /// The HTTP adapter's options: the contract's numbers, request bounds and access.
    public var apiOptions: APIOptions {
        var options = APIOptions()
        options.maxWaitSeconds = maxWaitSeconds
        options.cursorSeconds = cursorSeconds
        options.heartbeatSeconds = heartbeatSeconds
        options.maxListsPerRequest = maxListsPerRequest
        options.maximumDepth = maxDepth
        options.maxPatchOperations = maxPatchOperations
        options.maxDefinitionBytes = maxDefinitionBytes
        options.writeTokens = writeTokens
        options.privateReads = privateReads
        options.boundToLoopback = isLoopback
        options.maxTokenLifetimeSeconds = maxTokenLifetimeSeconds
        options.webRoot = webRoot
        return options
    }

    /// The HTTP server's configuration: address, limits, timeouts, CORS, and the security headers of every answer.
    public var httpServerConfiguration: HTTPServerConfiguration {
        var http = HTTPServerConfiguration()
        http.host = host
        http.port = port
        http.eventLoops = eventLoops
        http.maxBodySize = maxBodyBytes
        http.maxInflatedBodySize = maxBodyBytes
        http.maxConnections = maxConnections
        // Room for a many-lists request: `maxListsPerRequest` entries of `id:revision,` (at most 140 bytes each) in
        // the target, and again in `Last-Event-ID`.
        http.maxURILength = 8 * 1024 + maxListsPerRequest * 140
        http.maxHeadersSize = 16 * 1024 + 2 * maxListsPerRequest * 140
        http.timeoutSeconds = timeoutSeconds
        http.requestTimeoutSeconds = requestTimeoutSeconds
        http.corsAllowedOrigins = corsOrigins
        http.corsExposedHeaders = ["ETag", "Link", "Content-Encoding", "Location", "Idempotent-Replayed", "Retry-After"]
        http.corsAllowedHeaders = ["Authorization", "Content-Type", "Content-Encoding", "If-Match", "If-None-Match", "Last-Event-ID", "Idempotency-Key", "traceparent", "tracestate"]
        http.tracesRequests = tracing.isExporting
        http.untracedPaths = ["/healthz", "/metrics"]
        http.traceRootRatio = tracing.rootRatio
        http.traceFollowsParent = tracing.followsParent
        http.gzipMinimumSize = RenderedBody.compressionThreshold
        http.responseHeadWriting = ResponseHeadWriting(rawValue: responseHead) ?? .plain
        http.drainSeconds = drainSeconds
        http.maxConnectionsPerClient = maxConnectionsPerClient
        http.headerTimeoutSeconds = headerTimeoutSeconds
        http.maxOutputBytes = maxOutputBytes
        http.defaultResponseHeaders = SecurityHeaders.defaults
        return http
    }
}
