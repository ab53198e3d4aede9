import Glibc

/// The `Date` header value (RFC 9110 IMF-fixdate) of the current second, formatted once per second.
///
/// libevent formats a `Date` with `strftime` for every response that lacks one; a loop hands it this cached value
/// instead. Loop-confined.
struct HTTPDateCache {
    private var second: time_t = -1
    private var value = ""

    /// The value for now, for example `Sun, 22 Nov 2026 01:07:44 GMT`.
    mutating func current() -> String {
        let now = time(nil)
        if now != second {
            second = now
            value = Self.format(now)
        }
        return value
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats `seconds` since the epoch as an IMF-fixdate.
    static func format(_ seconds: time_t) -> String {
        var t = seconds
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
