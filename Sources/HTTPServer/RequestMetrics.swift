import Metrics

/// Cached metric handles of one loop; loop-confined. Handles are bounded by routes × methods × statuses.
///
/// A route's handles are found by its index in the router; among them, a counter by the method and the status
/// packed in one integer, in a short list searched linearly (a route sees a handful of method and status pairs).
/// Recording a request therefore hashes nothing.
struct RequestMetrics {
    private struct RouteHandles {
        var timer: Metrics.Timer?
        var counters: [(key: Int, counter: Counter)] = []
    }

    /// Index 0 holds unmatched requests, index *i* + 1 the router's route *i*.
    private var routes: [RouteHandles] = []

    /// Records one finished request under its route pattern (or `"unmatched"`, index -1).
    /// - Complexity: O(*k*), where *k* is the number of method and status pairs seen on the route.
    mutating func record(routeIndex: Int, route: String, method: String, status: Int, nanoseconds: UInt64) {
        let slot = max(0, routeIndex + 1)
        if slot >= routes.count { routes.append(contentsOf: repeatElement(RouteHandles(), count: slot + 1 - routes.count)) }
        let key = Self.methodCode(method) << 16 | (status & 0xFFFF)
        Self.counter(in: &routes[slot], key: key, route: route, method: method, status: status).increment()
        Self.timer(in: &routes[slot], route: route).recordNanoseconds(Int64(clamping: nanoseconds))
    }

    private static func counter(in handles: inout RouteHandles, key: Int, route: String, method: String, status: Int) -> Counter {
        for entry in handles.counters where entry.key == key { return entry.counter }
        let counter = Counter(
            label: "http_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))])
        handles.counters.append((key, counter))
        return counter
    }

    private static func timer(in handles: inout RouteHandles, route: String) -> Metrics.Timer {
        if let timer = handles.timer { return timer }
        let timer = Metrics.Timer(label: "http_request_duration_seconds", dimensions: [("route", route)])
        handles.timer = timer
        return timer
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
