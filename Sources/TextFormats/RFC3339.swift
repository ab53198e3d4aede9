#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Timestamps as RFC 3339 text in UTC: `2026-11-23T09:41:07.250Z`, or without the fraction
/// `2026-11-23T09:41:07Z`. The one formatter of the package: the service's times (commits, fetches) and the
/// feeds' entry times are written through it.
public enum RFC3339 {
    /// Formats `milliseconds` since the Unix epoch, with the milliseconds as a fraction unless
    /// `fractionalSeconds` is `false` (the time is then cut to the second below).
    /// - Complexity: O(1).
    public static func format(milliseconds: Int64, fractionalSeconds: Bool = true) -> String {
        var seconds = time_t(milliseconds.quotientAndRemainder(dividingBy: 1_000).quotient)
        var fraction = Int(milliseconds % 1_000)
        if fraction < 0 {
            seconds -= 1
            fraction += 1_000
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(Int(parts.tm_year) + 1900, 4))-\(padded(Int(parts.tm_mon) + 1, 2))-\(padded(Int(parts.tm_mday), 2))"
            + "T\(padded(Int(parts.tm_hour), 2)):\(padded(Int(parts.tm_min), 2)):\(padded(Int(parts.tm_sec), 2))"
            + (fractionalSeconds ? ".\(padded(fraction, 3))Z" : "Z")
    }
}
