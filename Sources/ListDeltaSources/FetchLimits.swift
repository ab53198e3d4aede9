/// The bounds every fetch keeps.
public struct FetchLimits: Sendable, Equatable {
    /// The most bytes of body, after inflation.
    public var maximumBytes: Int
    /// The time one fetch may take, redirects included.
    public var timeoutSeconds: Double
    /// The most redirects followed.
    public var maximumRedirects: Int

    public init(maximumBytes: Int = 10 << 20, timeoutSeconds: Double = 15, maximumRedirects: Int = 5) {
        self.maximumBytes = maximumBytes
        self.timeoutSeconds = timeoutSeconds
        self.maximumRedirects = maximumRedirects
    }
}
