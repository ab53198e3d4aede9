import ArgumentParser
import Foundation
import HTTPServer
import ListDeltaCore
import ListDeltaFeeds
import Logging
import Synchronization
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `listdelta-bench feed`: how fast feeds are read, and what a whole fetch of a changed feed costs the service.
struct FeedBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: """
            Parses a 10,000-entry RSS and Atom feed (against XMLParser with a delegate that does nothing, the floor), \
            then times the fetch-parse-diff-store cycle of a changed 1,000-entry feed on loopback (against a PUT of \
            the same list).
            """
    )

    @Option(help: "Entries in the parsed feeds.")
    var entries = 10_000

    @Option(help: "Entries in the feed of the fetch cycle.")
    var cycleEntries = 1_000

    @Option(help: "Timed runs (after one warm-up); the median is printed.")
    var runs = 7

    @Option(help: "The listdelta binary (default: the one beside this benchmark).")
    var binary: String?

    func run() throws {
        for kind in ["rss", "atom"] {
            let bytes = kind == "rss" ? SyntheticFeed.rss(entries: entries, seed: 0) : SyntheticFeed.atom(entries: entries, seed: 0)
            let parser = FeedParser(limits: FeedLimits(maximumEntries: max(entries, 1)))
            let parsed = try parser.parse(bytes, baseURL: "https://news.example.com/", charset: nil)
            guard parsed.entries.count == entries else {
                throw ValidationError("the \(kind) feed should have \(entries) entries, not \(parsed.entries.count)")
            }
            let parse = try medianMilliseconds(runs: runs) { blackHole(try parser.parse(bytes, baseURL: "https://news.example.com/", charset: nil)) }
            let floor = medianMilliseconds(runs: runs) { blackHole(Self.saxOnly(bytes)) }
            let map = medianMilliseconds(runs: runs) { blackHole(FeedListMapping(grouping: .none, maximumItems: entries).document(from: parsed)) }
            let megabytesPerSecond = Double(bytes.count) / 1e6 / (parse / 1_000)
            print("feed format=\(kind) entries=\(entries) bytes=\(bytes.count) parse_ms=\(format(parse)) mb_per_s=\(format(megabytesPerSecond))")
            print("feed_baseline format=\(kind) sax_only_ms=\(format(floor)) parse_over_sax=\(format(parse / floor)) map_ms=\(format(map))")
        }
        try cycle()
    }

    /// The item operations of a batch diff (deleted, inserted, moved, updated).
    private static func itemChanges(_ body: [UInt8]) -> Int {
        guard case .object(let diff)? = try? JSONReader().read(body), case .object(let items)? = diff["items"] else { return -1 }
        return items.values.reduce(0) { count, value in
            if case .array(let operations) = value { return count + operations.count }
            return count
        }
    }

    /// The floor of any XMLParser-based reader: the parse with a delegate that does nothing.
    private static func saxOnly(_ bytes: [UInt8]) -> Bool {
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        return parser.parse()
    }

    /// A changed feed fetched at once (`PUT .../source` of the same settings, which answers after the fetch has
    /// been parsed, diffed and stored), against a `PUT` of the list the feed maps to.
    private func cycle() throws {
        let feeds = ChangingFeedServer(entries: cycleEntries)
        try feeds.start()
        defer { feeds.stop() }
        let directory = NSTemporaryDirectory() + "listdelta-feed-bench-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(
            binary: binary ?? ServerProcess.siblingBinary(), arguments: ["--data", directory, "--allow-anonymous-writes"],
            environment: ["LISTDELTA_SOURCE_HOSTS": "127.0.0.1", "LISTDELTA_LOG_LEVEL": "error", "LISTDELTA_SOURCE_MAX_ITEMS": String(cycleEntries)])
        defer { server.stop() }
        let client = BenchHTTPClient(port: server.port)
        try server.waitUntilReady(client)
        let json = ["Content-Type": "application/json"]
        let settings = Array("{\"url\":\"http://127.0.0.1:\(feeds.port)/feed.xml\",\"interval\":86400,\"maxItems\":\(cycleEntries)}".utf8)
        let attached = try client.request("PUT", "/v1/lists/feed/source", headers: json, body: settings)
        guard attached.status == 201 else { throw ValidationError("attaching the source answered \(attached.status)") }
        var cycles: [Double] = []
        var puts: [Double] = []
        var lastChanges = 0
        for run in 0...runs {
            feeds.advance()
            var changed = false
            let cycle = try onceMilliseconds {
                let response = try client.request("PUT", "/v1/lists/feed/source", headers: json, body: settings)
                changed = response.status == 200 && String(decoding: response.body, as: UTF8.self).contains("\"changed\":true")
            }
            guard changed else { throw ValidationError("a changed feed should make a revision") }
            // The same list written directly: the document the feed maps to, as a PUT body.
            let document = JSONWriter.bytes(of: try feeds.currentDocument())
            let put = try onceMilliseconds {
                let response = try client.request("PUT", "/v1/lists/direct", headers: json, body: document)
                guard response.status == 200 || response.status == 201 else { throw ValidationError("PUT answered \(response.status)") }
            }
            let diff = try client.request("GET", "/v1/lists/feed/diff?from=\(run + 1)")
            lastChanges = Self.itemChanges(diff.body)
            if run > 0 {
                cycles.append(cycle)
                puts.append(put)
            }
        }
        let cycleMilliseconds = median(cycles)
        let putMilliseconds = median(puts)
        print("feed_cycle entries=\(cycleEntries) item_changes=\(lastChanges) cycle_ms=\(format(cycleMilliseconds)) put_ms=\(format(putMilliseconds)) cycle_over_put=\(format(cycleMilliseconds / putMilliseconds))")
    }
}

/// An RSS feed on loopback that changes (a few entries, see `SyntheticFeed`) each time it is advanced.
final class ChangingFeedServer: Sendable {
    let entries: Int
    private let seed = Seed()
    private let server: HTTPServer

    init(entries: Int) {
        self.entries = entries
        var router = Router()
        let seed = self.seed
        router.add(.GET, "/feed.xml") { _, responder in
            let body = SyntheticFeed.rss(entries: entries, seed: seed.value.load(ordering: .relaxed))
            responder.respond(HTTPResponse(status: 200, headers: ["Content-Type": "application/rss+xml"], body: .bytes(body)))
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        var logger = Logger(label: "feed-bench")
        logger.logLevel = .warning
        server = HTTPServer(configuration: configuration, router: router, logger: logger)
    }

    var port: Int { server.port }
    func start() throws { try server.start() }
    func stop() { server.shutdown() }
    func advance() { seed.value.add(1, ordering: .relaxed) }

    /// The document the current feed maps to.
    func currentDocument() throws -> JSONValue {
        let feed = try FeedParser().parse(SyntheticFeed.rss(entries: entries, seed: seed.value.load(ordering: .relaxed)), baseURL: nil, charset: nil)
        return FeedListMapping(grouping: .none, maximumItems: entries).document(from: feed).json
    }
}

/// The feed's current seed, shared with the server's handler.
final class Seed: Sendable {
    let value = Atomic<Int>(0)
}
