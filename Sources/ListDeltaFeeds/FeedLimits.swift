/// Bounds on what a feed may make the parser keep, so that a hostile or broken feed costs bounded memory.
public struct FeedLimits: Sendable, Equatable {
    /// The most entries kept; later entries are counted in `Feed.droppedEntries`. The default is 10,000.
    public var maximumEntries: Int
    /// The most UTF-8 bytes kept of an entry's `summary` and `content`; longer texts are cut at a character
    /// boundary. The default is 64 KiB.
    public var maximumTextBytes: Int
    /// The deepest element nesting (XML) or value nesting (JSON Feed) accepted; deeper documents are malformed.
    /// The default is 64.
    public var maximumDepth: Int

    /// Limits with the given bounds (negative values count as 0; the depth is at least 1).
    public init(maximumEntries: Int = 10_000, maximumTextBytes: Int = 64 * 1024, maximumDepth: Int = 64) {
        self.maximumEntries = max(0, maximumEntries)
        self.maximumTextBytes = max(0, maximumTextBytes)
        self.maximumDepth = max(1, maximumDepth)
    }
}
