import Foundation
import ListDeltaFeeds
import Testing

/// Reads the test fixtures (written by hand, shaped like real feeds) from the bundle.
enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil))
        return Array(try Data(contentsOf: url))
    }

    static func parse(_ name: String, baseURL: String? = nil, charset: String? = nil) throws -> Feed {
        try FeedParser().parse(bytes(name), baseURL: baseURL, charset: charset)
    }

    /// The error parsing `bytes` throws (or `nil` when it parses).
    static func error(_ bytes: [UInt8], charset: String? = nil) -> FeedParseError? {
        do {
            _ = try FeedParser().parse(bytes, baseURL: nil, charset: charset)
            return nil
        } catch {
            return error
        }
    }
}

/// A UTC date from its fields.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    var components = DateComponents()
    (components.year, components.month, components.day) = (year, month, day)
    (components.hour, components.minute, components.second) = (hour, minute, second)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: components)!
}
