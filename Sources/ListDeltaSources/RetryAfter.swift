public import Foundation

/// Reads `Retry-After`: delta-seconds or an HTTP-date in its IMF-fixdate form (RFC 9110 §5.6.7, §10.2.3).
public enum RetryAfter {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds from now, or `nil` when the value is missing or unreadable. A date in the past is 0.
    public static func seconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? Double(seconds) : nil }
        guard let date = imfFixdate(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func imfFixdate(_ value: String) -> Date? {
        let fields = value.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]),
            let month = months.firstIndex(of: fields[2].lowercased()), let year = Int(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month + 1, day)
        (components.hour, components.minute, components.second) = (clock[0], clock[1], clock[2])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)
    }
}
