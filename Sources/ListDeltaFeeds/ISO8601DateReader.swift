import Foundation

/// RFC 3339 / ISO 8601 extended format: `YYYY-MM-DD`, optionally `T` (or `t` or a space) `hh:mm[:ss[.fff…]]` and
/// a zone `Z`/`z`/`±hh:mm`/`±hhmm`/`±hh` (none: UTC). A date alone is midnight UTC.
enum ISO8601DateReader {
    /// The date, or `nil` when `bytes` are not in that shape (or a field is out of range).
    /// - Complexity: O(*n*).
    static func read(_ bytes: ArraySlice<UInt8>) -> Date? {
        var scanner = DateScanner(bytes)
        guard let year = scanner.digits(4, 4), scanner.skip(UInt8(ascii: "-")), let month = scanner.digits(2, 2),
            scanner.skip(UInt8(ascii: "-")), let day = scanner.digits(2, 2)
        else { return nil }
        if scanner.atEnd {
            return CivilCalendar.seconds(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, offsetSeconds: 0)
                .map { Date(timeIntervalSince1970: TimeInterval($0)) }
        }
        guard let separator = scanner.peek, separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == 0x20
        else { return nil }
        scanner.index += 1
        scanner.skipSpaces()
        guard let hour = scanner.digits(2, 2), scanner.skip(UInt8(ascii: ":")), let minute = scanner.digits(2, 2) else {
            return nil
        }
        var second = 0
        var fraction = 0.0
        if scanner.skip(UInt8(ascii: ":")) {
            guard let value = scanner.digits(2, 2) else { return nil }
            second = value
            if scanner.skip(UInt8(ascii: ".")) || scanner.skip(UInt8(ascii: ",")) {
                var scale = 0.1
                var count = 0
                while let byte = scanner.peek, byte >= 0x30 && byte <= 0x39 {
                    if count < 9 { fraction += Double(byte - 0x30) * scale }
                    scale /= 10
                    count += 1
                    scanner.index += 1
                }
                guard count > 0 else { return nil }
            }
        }
        scanner.skipSpaces()
        guard let offset = readZone(&scanner), scanner.atEnd else { return nil }
        guard let seconds = CivilCalendar.seconds(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// The zone's offset east of UTC in seconds; UTC when there is none.
    private static func readZone(_ scanner: inout DateScanner) -> Int? {
        guard let byte = scanner.peek else { return 0 }
        if byte == UInt8(ascii: "Z") || byte == UInt8(ascii: "z") {
            scanner.index += 1
            return 0
        }
        guard byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") else { return nil }
        scanner.index += 1
        guard let hours = scanner.digits(2, 2), hours <= 23 else { return nil }
        var minutes = 0
        if !scanner.atEnd {
            _ = scanner.skip(UInt8(ascii: ":"))
            guard let value = scanner.digits(2, 2), value <= 59 else { return nil }
            minutes = value
        }
        let offset = hours * 3600 + minutes * 60
        return byte == UInt8(ascii: "-") ? -offset : offset
    }
}
