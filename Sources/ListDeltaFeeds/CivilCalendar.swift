/// Proleptic Gregorian calendar arithmetic in UTC, without Foundation's calendars (no locale, no allocation).
enum CivilCalendar {
    /// Days from 1970-01-01 to the given date (negative before).
    /// - Complexity: O(1).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day counted from 1970-01-01.
    /// - Complexity: O(1).
    static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Seconds since 1970 for a UTC time of day, after checking every field's range; `nil` when out of range.
    static func seconds(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetSeconds: Int
    ) -> Int? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= daysInMonth(year: year, month: month), (0...24).contains(hour), (0...59).contains(minute),
            (0...60).contains(second), hour < 24 || (minute == 0 && second == 0)
        else { return nil }
        let daySeconds = days(year: year, month: month, day: day) * 86_400
        let result = daySeconds + hour * 3600 + minute * 60 + second - offsetSeconds
        // In UTC too the year must have four digits, so that every date read formats and reads back.
        guard result >= earliest, result < latest else { return nil }
        return result
    }

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in seconds since 1970.
    private static let earliest = days(year: 1, month: 1, day: 1) * 86_400
    private static let latest = days(year: 10_000, month: 1, day: 1) * 86_400
}
