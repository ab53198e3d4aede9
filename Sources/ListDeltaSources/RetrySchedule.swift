/// When a source is fetched next: after its interval when the last fetch succeeded; after failures, the interval
/// doubled per consecutive failure (capped), jittered so that many sources failing together do not retry together,
/// and never sooner than a server's `Retry-After`.
public struct RetrySchedule: Sendable, Equatable {
    /// The longest wait after failures, unless the interval itself is longer.
    public var maximumBackoffSeconds: Double
    /// The jitter: the delay is multiplied by a random factor in 1 - jitter ... 1 + jitter.
    public var jitter: Double
    /// The longest `Retry-After` honoured.
    public var maximumRetryAfterSeconds: Double

    public init(maximumBackoffSeconds: Double = 6 * 3_600, jitter: Double = 0.2, maximumRetryAfterSeconds: Double = 24 * 3_600) {
        self.maximumBackoffSeconds = maximumBackoffSeconds
        self.jitter = jitter
        self.maximumRetryAfterSeconds = maximumRetryAfterSeconds
    }

    /// Seconds until the next fetch.
    /// - Parameters:
    ///   - interval: The source's interval.
    ///   - consecutiveFailures: Failures in a row, counting the one just seen (0 after a success).
    ///   - retryAfter: What the server asked for, if anything.
    ///   - random: A number in 0..<1 (the jitter's draw).
    public func delay(interval: Double, consecutiveFailures: Int, retryAfter: Double?, random: Double) -> Double {
        guard consecutiveFailures > 0 else { return interval }
        let doubled = interval * Double(1 << min(consecutiveFailures, 20))
        let capped = min(doubled, max(interval, maximumBackoffSeconds))
        let jittered = capped * (1 - jitter + 2 * jitter * min(max(random, 0), 1))
        guard let retryAfter, retryAfter > 0 else { return jittered }
        return max(jittered, min(retryAfter, maximumRetryAfterSeconds))
    }
}
