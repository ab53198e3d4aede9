/// What the HTTP adapter is told by the composition root (`ListDeltaServer`, from the configuration): the
/// contract's own numbers (polls, streams, cursors), the bounds it checks while parsing, and who may read and
/// write. Every property has the default the configuration documents (docs/configuration.md).
public struct APIOptions: Sendable, Equatable {
    // MARK: - Polls and streams

    /// The longest long poll, in seconds; larger `wait` values are clamped. The default is 60.
    public var maxWaitSeconds = 60
    /// The length of a poll cursor's interval, in seconds (and how long shared caches may keep a poll's answer).
    /// The default is 20.
    public var cursorSeconds = 20
    /// Seconds between keep-alive comments on event streams. The default is 15.
    public var heartbeatSeconds = 15.0
    /// The most lists one many-lists request may name. The default is 100.
    public var maxListsPerRequest = 100

    // MARK: - Bounds of requests

    /// The deepest JSON nesting read from a body. The default is 64.
    public var maximumDepth = 64
    /// The most operations in one JSON Patch. The default is 1,000.
    public var maxPatchOperations = 1_000
    /// The largest `PUT .../view` body, in bytes. The default is 65,536.
    public var maxDefinitionBytes = 65_536

    // MARK: - Access

    /// Static bearer tokens: read and write every list. The default is none.
    public var writeTokens: [String] = []
    /// Whether reads need a token (`readAccess: token`). The default is `false`.
    public var privateReads = false
    /// Whether the instance is bound to a loopback address, where anonymous writes must name a loopback host. The
    /// default is `true`.
    public var boundToLoopback = true
    /// The longest a scoped token may live, in seconds. The default is a day.
    public var maxTokenLifetimeSeconds = 86_400

    // MARK: - The page

    /// A directory holding the page's files to serve instead of the built-in ones; empty for the built-in ones.
    public var webRoot = ""

    /// The defaults.
    public init() {}
}
