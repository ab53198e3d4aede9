import Metrics

/// Cached metric handles of one loop; loop-confined. Keys are bounded by routes × methods × statuses.
struct RequestMetrics {
    private var counters: [String: Counter] = [:]
    private var timers: [String: Metrics.Timer] = [:]

    /// Records one finished request under its route pattern (or `"unmatched"`).
    mutating func record(route: String, method: String, status: Int, nanoseconds: UInt64) {
        let key = "\(route) \(method) \(status)"
        let counter: Counter
        if let cached = counters[key] {
            counter = cached
        } else {
            counter = Counter(
                label: "http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))])
            counters[key] = counter
        }
        counter.increment()
        let timer: Metrics.Timer
        if let cached = timers[route] {
            timer = cached
        } else {
            timer = Metrics.Timer(label: "http_request_duration_seconds", dimensions: [("route", route)])
            timers[route] = timer
        }
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }
}
