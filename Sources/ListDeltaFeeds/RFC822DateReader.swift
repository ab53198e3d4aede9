import Foundation

/// RFC 822/1123 dates as RSS uses them, tolerating what real feeds do: no weekday or a wrong one (ignored), full
/// or abbreviated names in any case, one-digit days, two-digit years (< 50 → 20xx), missing seconds, extra
/// spaces and commas, zones `GMT`/`UT`/`UTC`/`Z`, US zones, military letters (RFC 822's signs), `±hhmm` and
/// `±hh:mm`, or no zone (UTC). A trailing comment such as `(PST)` is ignored.
enum RFC822DateReader {
    /// The date, or `nil` when `bytes` are not such a date.
    /// - Complexity: O(*n*).
    static func read(_ bytes: ArraySlice<UInt8>) -> Date? {
        var scanner = DateScanner(bytes)
        scanner.skipSpaces(commas: true)
        // An optional weekday (any word that is not a month: its value is never checked).
        var month: Int?
        var day: Int?
        if let byte = scanner.peek, !(byte >= 0x30 && byte <= 0x39) {
            let word = scanner.word()
            guard !word.isEmpty else { return nil }
            if let value = monthNumber(word) {
                month = value  // "Nov 25 2026 …"
            }
            _ = scanner.skip(UInt8(ascii: "."))
            scanner.skipSpaces(commas: true)
        }
        if month == nil {
            guard let value = scanner.digits(1, 2) else { return nil }
            day = value
            scanner.skipSpaces()
            _ = scanner.skip(UInt8(ascii: "-"))
            guard let value = monthNumber(scanner.word()) else { return nil }
            month = value
            _ = scanner.skip(UInt8(ascii: "."))
        } else {
            scanner.skipSpaces()
            guard let value = scanner.digits(1, 2) else { return nil }
            day = value
        }
        scanner.skipSpaces(commas: true)
        _ = scanner.skip(UInt8(ascii: "-"))
        let yearStart = scanner.index
        guard var year = scanner.digits(2, 4) else { return nil }
        if scanner.index - yearStart == 2 { year += year < 50 ? 2000 : 1900 } else if scanner.index - yearStart == 3 {
            year += 1900
        }
        scanner.skipSpaces(commas: true)
        var hour = 0, minute = 0, second = 0
        if let byte = scanner.peek, byte >= 0x30 && byte <= 0x39 {
            guard let h = scanner.digits(1, 2), scanner.skip(UInt8(ascii: ":")), let m = scanner.digits(1, 2) else {
                return nil
            }
            hour = h
            minute = m
            if scanner.skip(UInt8(ascii: ":")) {
                guard let s = scanner.digits(1, 2) else { return nil }
                second = s
                if scanner.skip(UInt8(ascii: ".")) { _ = scanner.digits(1, 9) }
            }
        }
        scanner.skipSpaces()
        guard let offset = readZone(&scanner) else { return nil }
        scanner.skipSpaces()
        if scanner.skip(UInt8(ascii: "(")) {
            while let byte = scanner.peek, byte != UInt8(ascii: ")") { scanner.index += 1 }
            _ = scanner.skip(UInt8(ascii: ")"))
            scanner.skipSpaces()
        }
        guard scanner.atEnd, let month, let day,
            let seconds = CivilCalendar.seconds(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetSeconds: offset)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// January = 1 from a (lowercased) month name or its first three letters.
    private static func monthNumber(_ word: String) -> Int? {
        guard word.utf8.count >= 3 else { return nil }
        let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard let index = names.firstIndex(of: String(word.prefix(3))) else { return nil }
        let full = [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ]
        guard word.count == 3 || full[index] == word || (index == 8 && word == "sept") else { return nil }
        return index + 1
    }

    /// The zone's offset east of UTC in seconds; UTC when there is none.
    private static func readZone(_ scanner: inout DateScanner) -> Int? {
        guard let byte = scanner.peek else { return 0 }
        if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
            scanner.index += 1
            guard let hours = scanner.digits(2, 2), hours <= 23 else { return nil }
            _ = scanner.skip(UInt8(ascii: ":"))
            let minutes = scanner.digits(2, 2) ?? 0
            guard minutes <= 59 else { return nil }
            let offset = hours * 3600 + minutes * 60
            return byte == UInt8(ascii: "-") ? -offset : offset
        }
        if byte == UInt8(ascii: "(") { return 0 }
        let name = scanner.word()
        switch name {
        case "gmt", "ut", "utc", "z": return 0
        case "est": return -5 * 3600
        case "edt": return -4 * 3600
        case "cst": return -6 * 3600
        case "cdt": return -5 * 3600
        case "mst": return -7 * 3600
        case "mdt": return -6 * 3600
        case "pst": return -8 * 3600
        case "pdt": return -7 * 3600
        default:
            guard name.utf8.count == 1, let letter = name.utf8.first, letter != UInt8(ascii: "j") else { return nil }
            // RFC 822: A–I are −1…−9 hours, K–M −10…−12, N–Y +1…+12.
            switch letter {
            case UInt8(ascii: "a")...UInt8(ascii: "i"): return -Int(letter - UInt8(ascii: "a") + 1) * 3600
            case UInt8(ascii: "k")...UInt8(ascii: "m"): return -Int(letter - UInt8(ascii: "k") + 10) * 3600
            case UInt8(ascii: "n")...UInt8(ascii: "y"): return Int(letter - UInt8(ascii: "n") + 1) * 3600
            default: return nil
            }
        }
    }
}
