public import Foundation
import TextFormats

/// Feed dates read and written by hand: RFC 822/1123 (RSS) with the deviations real feeds have, and
/// RFC 3339/ISO 8601 (Atom, JSON Feed, `dc:date`). No `DateFormatter`: no locale, no allocation per date.
public enum FeedDate {
    /// The date `text` denotes, trying ISO 8601 first when it starts like one, else RFC 822; `nil` when neither
    /// reads it.
    /// - Complexity: O(*n*) in the text.
    public static func parse(_ text: String) -> Date? {
        var bytes = Array(text.utf8)
        while let last = bytes.last, isXMLSpace(last) { bytes.removeLast() }
        var start = 0
        while start < bytes.count, isXMLSpace(bytes[start]) { start += 1 }
        let trimmed = bytes[start...]
        guard !trimmed.isEmpty, trimmed.count <= 128 else { return nil }
        if let iso = ISO8601DateReader.read(trimmed) { return iso }
        return RFC822DateReader.read(trimmed)
    }

    /// `date` as RFC 3339 in UTC with whole seconds and a `Z`, for example `2026-11-25T08:00:00Z`.
    /// - Complexity: O(1).
    public static func rfc3339(_ date: Date) -> String {
        RFC3339.format(milliseconds: Int64((date.timeIntervalSince1970 * 1_000).rounded(.down)), fractionalSeconds: false)
    }

    /// The UTC calendar day of `date` as `YYYY-MM-DD`, with the day of the month.
    static func utcDay(_ date: Date) -> (key: String, day: Int, ordinal: Int) {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let (year, month, day) = CivilCalendar.date(days: days)
        return ("\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))", day, days)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

/// A cursor over ASCII bytes for the date readers.
struct DateScanner {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var atEnd: Bool { index >= bytes.endIndex }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    /// Reads `minimum`…`maximum` decimal digits as a number.
    mutating func digits(_ minimum: Int, _ maximum: Int) -> Int? {
        var value = 0
        var count = 0
        while count < maximum, let byte = peek, byte >= 0x30 && byte <= 0x39 {
            value = value * 10 + Int(byte - 0x30)
            count += 1
            index += 1
        }
        return count >= minimum ? value : nil
    }

    /// Consumes `byte` when it is next.
    mutating func skip(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Skips spaces, tabs and (when `commas`) commas.
    mutating func skipSpaces(commas: Bool = false) {
        while let byte = peek, byte == 0x20 || byte == 0x09 || (commas && byte == UInt8(ascii: ",")) { index += 1 }
    }

    /// Reads a run of ASCII letters, lowercased.
    mutating func word() -> String {
        var letters: [UInt8] = []
        while let byte = peek, (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A {
            letters.append(byte | 0x20)
            index += 1
        }
        return String(decoding: letters, as: UTF8.self)
    }
}
