import Metrics

/// Cached metric handles of one loop; loop-confined. Keys are bounded by routes × methods × statuses.
///
/// Handles are found by the route's index in the router, the method and the status packed in one integer, so
/// recording a request hashes no string.
struct RequestMetrics {
    private var counters: [Int: Counter] = [:]
    private var timers: [Int: Metrics.Timer] = [:]

    /// Records one finished request under its route pattern (or `"unmatched"`, index -1).
    mutating func record(routeIndex: Int, route: String, method: String, status: Int, nanoseconds: UInt64) {
        let routeKey = routeIndex + 1
        let key = routeKey << 32 | Self.methodCode(method) << 16 | (status & 0xFFFF)
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
        if let cached = timers[routeKey] {
            timer = cached
        } else {
            timer = Metrics.Timer(label: "http_request_duration_seconds", dimensions: [("route", route)])
            timers[routeKey] = timer
        }
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }

    private static func methodCode(_ method: String) -> Int {
        switch method {
        case "GET": 1
        case "HEAD": 2
        case "POST": 3
        case "PUT": 4
        case "PATCH": 5
        case "DELETE": 6
        case "OPTIONS": 7
        case "TRACE": 8
        case "CONNECT": 9
        default: 10
        }
    }
}
