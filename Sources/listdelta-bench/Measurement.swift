import Foundation

/// Times a closure: one warm-up run, then the median of `runs` timed runs, in milliseconds.
func medianMilliseconds<E: Error>(runs: Int, _ body: () throws(E) -> Void) throws(E) -> Double {
    try body()
    var samples: [Double] = []
    for _ in 0..<runs {
        samples.append(try onceMilliseconds(body))
    }
    return median(samples)
}

/// The middle value (the upper middle of an even count).
func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

/// Milliseconds of one run.
func onceMilliseconds<E: Error>(_ body: () throws(E) -> Void) throws(E) -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
}

/// A figure with two decimals, or four significant digits below 1 (so small ratios do not print as 0.0).
func format(_ value: Double) -> String {
    if value != 0, abs(value) < 1 { return String(format: "%.4g", value) }
    return String(format: "%.2f", value)
}

/// Keeps the optimiser from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
