public import ListDeltaCore

/// What the application layer is told by the composition root (`ListDeltaServer`, from the configuration): its
/// bounds, its worker pools, its caches, and how it keeps sources and views. Every property has the default the
/// configuration documents (docs/configuration.md).
public struct ApplicationOptions: Sendable, Equatable {
    // MARK: - Documents and definitions

    /// What a written document must respect (sections, items, depth, bytes).
    public var documentLimits = DocumentLimits()
    /// What a view's definition must respect.
    public var definitionLimits = DefinitionLimits()
    /// The deepest JSON nesting read from a body or a feed's document. The default is 64.
    public var maximumDepth = 64

    // MARK: - Caches

    /// Memory for cached documents and rendered bodies, in bytes (half for documents, a quarter for rendered
    /// bodies). The default is 64 MiB.
    public var cacheBytes = 64 << 20
    /// List heads kept in memory. The default is 100,000.
    public var cachedLists = 100_000

    // MARK: - Worker pools

    /// Threads of the read pool. The default is 4.
    public var readThreads = 4
    /// Threads of the write pool (and of the view pool, which runs at a lower priority). The default is 2.
    public var writeThreads = 2
    /// Jobs that may wait in the read and the write pool each; past it a request is refused. The default is 1,000.
    public var maximumQueuedJobs = 1_000

    // MARK: - Sources

    /// How lists fed by sources are fetched.
    public var sources = SourceOptions()

    // MARK: - Views

    /// The most views at once (in the store, over every instance sharing it). The default is 1,000.
    public var maximumViews = 1_000
    /// How often each instance looks for views behind their base, in seconds. The default is 2.
    public var viewSweepSeconds = 2.0

    // MARK: - Live queries

    /// The most distinct live queries that held polls and open streams follow at once, per instance. The default
    /// is 10,000.
    public var maximumQueries = QueryKeeper.defaultMaximumQueries

    /// How long the answer to a write sent with an `Idempotency-Key` is kept and replayed, in seconds. The default
    /// is 86,400.
    public var idempotencySeconds = 86_400

    /// The defaults.
    public init() {}
}

/// How lists fed by sources are fetched (docs/sources.md).
public struct SourceOptions: Sendable, Equatable {
    /// Which hosts sources may fetch from (`public`, name patterns, addresses and ranges). The default is
    /// `["public"]`.
    public var hosts = ["public"]
    /// The directory `file:` sources must lie in; `nil` turns file sources off. The default is `nil`.
    public var fileDirectory: String?
    /// The shortest `interval` a source may have, in seconds. The default is 10.
    public var minimumInterval = 10
    /// The largest `maxItems` a source may have. The default is 10,000.
    public var maximumItems = 10_000
    /// The most sources attached at once. The default is 1,000.
    public var maximumSources = 1_000
    /// The largest feed a fetch reads, after inflation, in bytes. The default is 10 MiB.
    public var maximumBytes = 10 << 20
    /// The longest one fetch may take, redirects included, in seconds. The default is 15.
    public var timeoutSeconds = 15.0
    /// Fetches under way at once. The default is 4.
    public var concurrentFetches = 4

    /// The defaults.
    public init() {}
}
