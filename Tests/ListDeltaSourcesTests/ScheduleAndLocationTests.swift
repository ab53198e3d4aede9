import Foundation
import ListDeltaSources
import Testing

@Suite struct RetryScheduleTests {
    let schedule = RetrySchedule()

    @Test func successWaitsTheInterval() {
        #expect(schedule.delay(interval: 300, consecutiveFailures: 0, retryAfter: nil, random: 0.9) == 300)
    }

    @Test func failuresDoubleWithJitterAndACap() {
        let low = schedule.delay(interval: 60, consecutiveFailures: 1, retryAfter: nil, random: 0)
        let high = schedule.delay(interval: 60, consecutiveFailures: 1, retryAfter: nil, random: 0.999)
        #expect(abs(low - 96) < 0.01 && abs(high - 144) < 0.1, "2 × 60 s ± 20 %")
        #expect(schedule.delay(interval: 60, consecutiveFailures: 3, retryAfter: nil, random: 0.5) == 480)
        #expect(schedule.delay(interval: 60, consecutiveFailures: 40, retryAfter: nil, random: 0.5) == 6 * 3_600)
        // An interval longer than the cap is never shortened by a failure.
        #expect(schedule.delay(interval: 86_400, consecutiveFailures: 5, retryAfter: nil, random: 0.5) == 86_400)
    }

    @Test func retryAfterIsAFloorWithACeiling() {
        #expect(schedule.delay(interval: 10, consecutiveFailures: 1, retryAfter: 120, random: 0.5) == 120)
        #expect(schedule.delay(interval: 600, consecutiveFailures: 1, retryAfter: 5, random: 0.5) == 1_200)
        #expect(schedule.delay(interval: 10, consecutiveFailures: 1, retryAfter: 1e9, random: 0.5) == 86_400)
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.seconds("120") == 120)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:51:37 GMT", now: now) == 120)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == 0)
        #expect(RetryAfter.seconds("soon") == nil)
        #expect(RetryAfter.seconds("-5") == nil)
        #expect(RetryAfter.seconds(nil) == nil)
    }
}

@Suite struct SourceLocationTests {
    @Test func webURLsAreChecked() throws {
        #expect(try SourceLocation("https://example.com/feed.xml", fileDirectory: nil) == .web(URL(string: "https://example.com/feed.xml")!))
        for bad in ["", "feed.xml", "ftp://example.com/x", "gopher://x", "http://user:pw@example.com/", "http:///nohost", "javascript:alert(1)",
            "http://127.0.0.1%00.example.com/", "http://ex%61mple.com/", "http://exa mple.com/"] {
            #expect(throws: SourceFetchError.self, "\(bad)") { try SourceLocation(bad, fileDirectory: "/tmp") }
        }
        #expect(throws: SourceFetchError.self) { try SourceLocation("https://e.com/" + String(repeating: "a", count: 3_000), fileDirectory: nil) }
    }

    @Test func fileURLsMustStayInTheDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let inside = root.appendingPathComponent("feed.xml")
        try Data("<rss/>".utf8).write(to: inside)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape").path, withDestinationPath: "/etc/passwd")
        guard case .file(let path) = try SourceLocation("file://\(inside.path)", fileDirectory: root.path) else {
            Issue.record("a file location")
            return
        }
        #expect(path.hasSuffix("/feed.xml"))
        #expect(throws: SourceFetchError.self) { try SourceLocation("file://\(inside.path)", fileDirectory: nil) }
        #expect(throws: SourceFetchError.self) { try SourceLocation("file:///etc/passwd", fileDirectory: root.path) }
        #expect(throws: SourceFetchError.self) { try SourceLocation("file://\(root.path)/../../etc/passwd", fileDirectory: root.path) }
        #expect(throws: SourceFetchError.self) { try SourceLocation("file://\(root.path)/escape", fileDirectory: root.path) }
    }

    @Test func redirectsResolveAndStayOnTheWeb() throws {
        let base = URL(string: "https://example.com/a/feed")!
        #expect(try SourceLocation.redirect("/b", from: base).absoluteString == "https://example.com/b")
        #expect(try SourceLocation.redirect("other", from: base).absoluteString == "https://example.com/a/other")
        #expect(throws: SourceFetchError.self) { try SourceLocation.redirect("file:///etc/passwd", from: base) }
    }

    @Test func fileFetchesAreConditionalOnTimeAndSize() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString).xml")
        try Data("<rss version=\"2.0\"/>".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fetcher = FileSourceFetcher(limits: FetchLimits(maximumBytes: 1_024))
        let first = try fetcher.fetch(FetchRequest(location: .file(path: file.path)))
        #expect(first.body == .content(Array("<rss version=\"2.0\"/>".utf8)))
        let again = try fetcher.fetch(FetchRequest(location: .file(path: file.path), validators: first.validators))
        #expect(again.body == .notModified)
        let longer = Data("<rss version=\"2.0\"><channel/></rss>".utf8)
        try longer.write(to: file)
        let changed = try fetcher.fetch(FetchRequest(location: .file(path: file.path), validators: first.validators))
        #expect(changed.body == .content(Array(longer)))
        try Data(repeating: 0x20, count: 2_000).write(to: file)
        #expect(throws: SourceFetchError.self) { try fetcher.fetch(FetchRequest(location: .file(path: file.path))) }
        #expect(throws: SourceFetchError.self) { try fetcher.fetch(FetchRequest(location: .file(path: file.path + ".missing"))) }
    }
}
