import ArgumentParser
import Foundation
import ListDeltaCore
import Synchronization

/// `listdelta-bench queries`: what live queries cost their base's writers, how fast their held polls are woken, how
/// fast a new query over a large base is answered and what each kept query costs in memory, through real HTTP.
///
/// A base of `--items` items is followed by `--queries` distinct live queries (filters of every operator, sorts
/// with windows, groupings), each with one held long poll (a thread and a connection each, re-polling from every
/// answer). Then `--writes` one-item PATCHes of the base, each followed by a one-item PATCH of a list of the same
/// items that no query follows (the baseline, under the same load), one second apart. The polls share one client
/// thread that multiplexes their connections with `poll(2)`, so the client's own scheduling on a small machine
/// adds as little as it can to the wake times it measures. A poll answered with changes
/// is a wake, timed from the moment its write was sent; a poll answered without changes during the writes would be
/// a wake by a write that did not change its result (the polls are held far longer than the run).
struct QueriesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queries", abstract: "Times base writes, wakes and first answers with 1,000 live queries held over a 10,000-item base.")

    @Option(help: "Items in the followed base.")
    var items = 10_000

    @Option(help: "Distinct live queries, each with one held poll.")
    var queries = 1_000

    @Option(help: "Timed base writes (and as many baseline writes).")
    var writes = 21

    @Option(help: "Items in the base of the first-answer measurement.")
    var largeItems = 100_000

    @Option(help: "New queries timed over the large base (median printed).")
    var firstAnswers = 11

    @Option(help: "The server's cacheBytes, in MiB (the 100,000-item base's revision must fit its document cache).")
    var cacheMegabytes = 512

    @Option(help: "The listdelta binary to measure (default: the one built beside this benchmark).")
    var binary: String?

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listdelta-bench-queries-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(
            binary: binary ?? ServerProcess.siblingBinary(), arguments: ["--data", directory, "--allow-anonymous-writes", "--max-wait", "600"],
            environment: [
                "LISTDELTA_MAX_BODY_BYTES": String(64 << 20), "LISTDELTA_LOG_LEVEL": "error", "LISTDELTA_CACHE_BYTES": String(cacheMegabytes << 20),
                "LISTDELTA_MAX_QUERIES": String(max(queries, 1)),
            ])
        defer { server.stop() }
        let client = BenchHTTPClient(port: server.port)
        try server.waitUntilReady(client)
        var base = ListEditor(count: items, shape: .views)
        var plain = ListEditor(count: items, shape: .views)
        var revision = 0
        for list in ["base", "plain"] {
            let created = try client.request("PUT", "/v1/lists/\(list)", headers: ["Content-Type": "application/json"], body: base.body())
            guard created.status == 201 else { throw ValidationError("creating \(list) failed: \(created.status)") }
            revision = try Self.revision(created)
        }
        // Warm the base's document and the server's code paths, then take the memory without queries.
        for _ in 0..<3 {
            revision = try Self.revision(try patch(&base, "base", client))
            _ = try patch(&plain, "plain", client)
        }
        let residentBefore = try server.residentBytes()

        let polls = try HeldPolls(queries: (0..<queries).map(Self.query), list: "base", from: revision, port: server.port)
        polls.start()
        try waitForHeld(queries, client)
        let residentAfter = try server.residentBytes()

        var writeTimes: [Double] = []
        var baselineTimes: [Double] = []
        var wakes: [Double] = []
        var unaffected = 0
        for run in 0..<writes {
            if run % 2 == 1 { baselineTimes.append(try onceMilliseconds { _ = try patch(&plain, "plain", client) }) }
            let sent = ContinuousClock.now
            revision = try Self.revision(try patch(&base, "base", client))
            writeTimes.append(milliseconds(ContinuousClock.now - sent))
            if run % 2 == 0 { baselineTimes.append(try onceMilliseconds { _ = try patch(&plain, "plain", client) }) }
            Thread.sleep(forTimeInterval: 1)
            for answer in polls.takeAnswers() {
                if answer.changed { wakes.append(milliseconds(answer.at - sent)) } else { unaffected += 1 }
            }
        }
        polls.stop()

        let firstAnswer = try firstAnswerMilliseconds(client)
        wakes.sort()
        let p99 = wakes.isEmpty ? 0 : wakes[min(wakes.count - 1, Int((Double(wakes.count) * 0.99).rounded(.up)) - 1)]
        var line = "queries active=\(queries) base_items=\(items) write_ms_p50=\(format(median(writeTimes)))"
        line += " baseline_write_ms_p50=\(format(median(baselineTimes))) wake_p99_ms=\(format(p99)) woken_unaffected=\(unaffected)"
        line += " first_answer_ms_100k=\(format(firstAnswer))"
        line += " memory_per_query_kb=\(format(Double(residentAfter - residentBefore) / 1_024 / Double(max(queries, 1))))"
        print(line)
        let updates = try Self.histogram("listdelta_query_update_seconds", client)
        let answers = try Self.histogram("listdelta_query_answer_seconds", client)
        let told = try Self.histogram("listdelta_query_wake_seconds", client)
        print("queries wakes=\(wakes.count) writes=\(writes) wake_p50_ms=\(format(wakes.isEmpty ? 0 : wakes[wakes.count / 2]))"
            + " update_ms_mean=\(format(updates.count > 0 ? updates.sum / updates.count * 1_000 : 0))"
            + " told_ms_mean=\(format(told.count > 0 ? told.sum / told.count * 1_000 : 0))"
            + " answer_ms_mean=\(format(answers.count > 0 ? answers.sum / answers.count * 1_000 : 0))"
            + " write_ratio=\(format(median(writeTimes) / median(baselineTimes))) command=\"swift build -c release --product listdelta && swift build -c release --product listdelta-bench && .build/release/listdelta-bench queries\"")
    }

    /// The sum and count of a histogram of the server's /metrics.
    private static func histogram(_ name: String, _ client: BenchHTTPClient) throws -> (sum: Double, count: Double) {
        let metrics = String(decoding: try client.request("GET", "/metrics").body, as: UTF8.self).split(separator: "\n")
        func value(_ suffix: String) -> Double {
            metrics.first { $0.hasPrefix(name + suffix + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        return (value("_sum"), value("_count"))
    }

    /// A one-item PATCH of `list`, acknowledged.
    private func patch(_ editor: inout ListEditor, _ list: String, _ client: BenchHTTPClient) throws -> BenchHTTPClient.Response {
        let response = try client.request("PATCH", "/v1/lists/\(list)", headers: ["Content-Type": "application/json-patch+json"], body: editor.patch(1))
        guard response.status == 200 else { throw ValidationError("PATCH \(list) failed: \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        return response
    }

    /// Waits (at most 120 s) until the server holds `count` queries.
    private func waitForHeld(_ count: Int, _ client: BenchHTTPClient) throws {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let metrics = String(decoding: try client.request("GET", "/metrics").body, as: UTF8.self)
            let held = metrics.split(separator: "\n").first { $0.hasPrefix("listdelta_queries_held ") }
            if let held, let value = Double(held.split(separator: " ").last ?? ""), Int(value) >= count { return }
            usleep(100_000)
        }
        throw ValidationError("the server did not hold \(count) queries within 120 s")
    }

    /// GET `?q=` of new queries over a base of `largeItems` items, each distinct (so none is cached): the median.
    private func firstAnswerMilliseconds(_ client: BenchHTTPClient) throws -> Double {
        let large = ListEditor(count: largeItems, shape: .views)
        let created = try client.request("PUT", "/v1/lists/large", headers: ["Content-Type": "application/json"], body: large.body())
        guard created.status == 201 else { throw ValidationError("creating large failed: \(created.status)") }
        _ = try client.request("GET", "/v1/lists/large", headers: ["Accept-Encoding": "identity"])
        var samples: [Double] = []
        for run in 0..<firstAnswers {
            let query = #"{"where":[{"path":"/model/unread","op":"eq","value":true},{"path":"/model/score","op":"gte","value":\#(run * 1_000)}],"sort":[{"path":"/model/score","order":"desc"}],"limit":50}"#
            samples.append(try onceMilliseconds {
                let response = try client.request("GET", "/v1/lists/large?q=" + HeldPolls.encoded(query), headers: ["Accept-Encoding": "identity"])
                guard response.status == 200 else { throw ValidationError("GET ?q= failed: \(response.status)") }
            })
        }
        return median(samples)
    }

    private static func revision(_ response: BenchHTTPClient.Response) throws -> Int {
        guard let revision = Int(response.headers["etag"]?.filter(\.isNumber) ?? "") else { throw ValidationError("no revision in the ETag") }
        return revision
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    /// Query `index`, distinct for every index: a fifth each of a category filter in windows of 20, a score range
    /// sorted by id, two categories by version, the unread items of highest score in windows, and groupings by
    /// category of a prefix, `contains`, `ne`, `lte` or `exists` filter.
    static func query(_ index: Int) -> String {
        let k = index / 5
        let category = "c\(k % 20)"
        switch index % 5 {
        case 0:
            return #"{"where":[{"path":"/model/cat","op":"eq","value":"\#(category)"}],"offset":\#(k / 20 * 20),"limit":20,"sections":"none"}"#
        case 1:
            return #"{"where":[{"path":"/model/score","op":"gte","value":\#(k * 450)},{"path":"/model/score","op":"lt","value":\#(k * 450 + 2_000)}],"sort":[{"path":"/model/n"}]}"#
        case 2:
            return #"{"where":[{"path":"/model/cat","op":"in","value":["\#(category)","c\#((k + 7) % 20)"]}],"sort":[{"path":"/model/v","order":"desc"},{"path":"/model/n"}],"limit":\#(10 + k)}"#
        case 3:
            return #"{"where":[{"path":"/model/unread","op":"eq","value":true}],"sort":[{"path":"/model/score","order":"desc"}],"offset":\#(k * 10),"limit":20}"#
        default:
            let filters = [
                #"{"path":"/model/cat","op":"prefix","value":"c1"}"#, #"{"path":"/model/cat","op":"contains","value":"\#(k % 10)"}"#,
                #"{"path":"/model/cat","op":"ne","value":"\#(category)"}"#, #"{"path":"/model/score","op":"lte","value":\#(k * 499)}"#,
                #"{"path":"/model/unread","op":"exists","value":true}"#,
            ]
            return #"{"where":[\#(filters[k % filters.count])],"sort":[{"path":"/model/score"}],"limit":\#(20 + k),"sections":{"by":"/model/cat"}}"#
        }
    }
}

