/// Times a closure: one warm-up run, then the median of `runs` timed runs, in milliseconds.
func medianMilliseconds(runs: Int, _ body: () -> Void) -> Double {
    body()
    var samples: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<runs {
        let elapsed = clock.measure(body)
        samples.append(Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// Milliseconds of one run.
func onceMilliseconds(_ body: () -> Void) -> Double {
    let elapsed = ContinuousClock().measure(body)
    return Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
}

/// A figure with two decimals.
func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return String(scaled)
}

/// Keeps the optimiser from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
