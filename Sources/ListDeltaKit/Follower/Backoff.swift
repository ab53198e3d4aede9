/// Capped exponential backoff with jitter, as client.js's: the *n*-th delay in a row is drawn uniformly from
/// [cap/2, cap] where cap = min(maximum, initial · 2ⁿ), so clients that failed together do not retry together.
public struct Backoff: Sendable {
    /// The first delay's cap and the largest cap.
    public struct Configuration: Sendable, Equatable {
        /// The cap of the first delay after a success. Default 0.5 s.
        public var initial: Duration
        /// The largest cap. Default 15 s.
        public var maximum: Duration

        /// Creates a configuration.
        public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(15)) {
            self.initial = initial
            self.maximum = maximum
        }
    }

    /// The caps.
    public let configuration: Configuration
    private var attempt = 0
    private var random: any RandomNumberGenerator & Sendable

    /// Creates a backoff; pass a seeded `random` to make the delays reproducible.
    public init(_ configuration: Configuration = Configuration(), random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        self.random = random
    }

    /// The next delay; each call doubles the cap until it reaches the maximum.
    /// - Complexity: O(1).
    public mutating func next() -> Duration {
        let doubled = configuration.initial * (1 << min(attempt, 30))
        let cap = min(configuration.maximum, doubled)
        attempt = min(attempt + 1, 30)
        return cap / 2 + cap / 2 * Double.random(in: 0...1, using: &random)
    }

    /// Starts again from the initial delay (after a success).
    public mutating func reset() {
        attempt = 0
    }
}
