import Foundation

/// Realistic feeds of any size for benchmarks and tests: titles, links, guids, dates, HTML descriptions and two
/// categories per entry, all derived from the entry's index, so that equal arguments give equal bytes.
///
/// `seed` changes a few entries (about one in fifty: a revised title and description), so two seeds of the same
/// size make a feed and its changed next fetch.
public enum SyntheticFeed {
    private static let words = [
        "swift", "server", "release", "notes", "update", "linux", "feeds", "lists", "diffs", "patch", "cache",
        "latency", "memory", "design", "testing", "review", "music", "travel", "garden", "science",
    ]
    private static let topics = ["Technology", "Science", "Culture", "Sports", "Business", "Travel", "Food", "Health"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]

    /// An RSS 2.0 feed of `entries` items.
    /// - Complexity: O(*entries*).
    public static func rss(entries: Int, seed: Int) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel>
            <title>Synthetic News</title>
            <link>https://news.example.com/</link>
            <description>Generated for benchmarks</description>

            """
        text.reserveCapacity(entries * 700)
        for index in 0..<max(0, entries) {
            let entry = Entry(index: index, seed: seed)
            text += """
                <item>
                <title>\(FeedText.escapedMarkup(entry.title))</title>
                <link>https://news.example.com/\(index)/\(entry.slug)</link>
                <guid isPermaLink="false">urn:synthetic:\(index)</guid>
                <pubDate>\(rfc822(entry.time))</pubDate>
                <dc:creator>Author \(index % 37)</dc:creator>
                <description>\(FeedText.escapedMarkup(entry.html))</description>
                <category>\(entry.categories.0)</category>
                <category>\(entry.categories.1)</category>
                </item>

                """
        }
        text += "</channel>\n</rss>\n"
        return Array(text.utf8)
    }

    /// An Atom 1.0 feed of `entries` entries.
    /// - Complexity: O(*entries*).
    public static func atom(entries: Int, seed: Int) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://news.example.com/">
            <title>Synthetic News</title>
            <link href="/" />
            <id>urn:synthetic:feed</id>
            <updated>2026-11-25T08:00:00Z</updated>

            """
        text.reserveCapacity(entries * 750)
        for index in 0..<max(0, entries) {
            let entry = Entry(index: index, seed: seed)
            let time = FeedDate.rfc3339(Date(timeIntervalSince1970: Double(entry.time)))
            text += """
                <entry>
                <title>\(FeedText.escapedMarkup(entry.title))</title>
                <link rel="alternate" href="\(index)/\(entry.slug)"/>
                <id>urn:synthetic:\(index)</id>
                <published>\(time)</published>
                <updated>\(time)</updated>
                <author><name>Author \(index % 37)</name></author>
                <summary type="html">\(FeedText.escapedMarkup(entry.html))</summary>
                <category term="\(entry.categories.0)"/>
                <category term="\(entry.categories.1)"/>
                </entry>

                """
        }
        text += "</feed>\n"
        return Array(text.utf8)
    }

    /// One entry's generated values.
    private struct Entry {
        var title: String
        var slug: String
        var html: String
        var time: Int
        var categories: (String, String)

        init(index: Int, seed: Int) {
            var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 &+ 0x2545_F491_4F6C_DD1D
            func next() -> Int {
                state ^= state >> 33
                state = state &* 0xFF51_AFD7_ED55_8CCD
                state ^= state >> 29
                return Int(state % 1_000_003)
            }
            let chosen = (0..<5).map { _ in SyntheticFeed.words[next() % SyntheticFeed.words.count] }
            let revised = seed != 0 && (index &* 31 &+ seed &* 17) % 50 == 0
            title = chosen.prefix(4).joined(separator: " ").capitalized + " & more #\(index)"
                + (revised ? " (revised \(seed))" : "")
            slug = chosen.prefix(3).joined(separator: "-")
            html = "<p>About <b>\(chosen[0])</b> and <a href=\"https://example.org/\(chosen[1])\">\(chosen[1])</a>: "
                + chosen.joined(separator: " ") + " — " + String(repeating: "lorem ipsum dolor sit amet ", count: 4)
                + (revised ? "<em>Updated with seed \(seed).</em>" : "") + "</p>"
            // One entry an hour back from 2026-11-25T08:00:00Z.
            time = 1_795_564_800 + 8 * 3600 - index * 3600
            categories = (SyntheticFeed.topics[index % SyntheticFeed.topics.count], SyntheticFeed.topics[(index / 3 + 1) % SyntheticFeed.topics.count])
        }
    }

    /// RFC 822 with weekday and `+0000`.
    private static func rfc822(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = CivilCalendar.date(days: days)
        let rest = seconds - days * 86_400
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) +0000"
    }
}
