import ArgumentParser
import Foundation
import ListDeltaCore

/// `listdelta-bench views`: what views cost a base's writers and how fast they follow, through real HTTP.
///
/// One base of `--items` items with 1, 10 and then 100 views of it that mix filters, sorts with limits and
/// groupings, and beside it a list with the same items and no views, written in turn with the base so that both
/// see the same load on this shared machine (the baseline). For each count: the acknowledgement of a
/// 10-operation PATCH of each, the time from sending the base's until every view's `basedOn` reached it, and a
/// follower's diff of a view between its revisions before and after (medians of `--runs`).
struct ViewsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "views", abstract: "Times base writes and view updates with 0, 1, 10 and 100 views of one base.")

    @Option(help: "Items in the base.")
    var items = 100_000

    @Option(help: "Timed base writes per view count (median printed).")
    var runs = 11

    @Option(help: "The view counts measured.")
    var counts = [1, 10, 100]

    @Option(help: "The server's cacheBytes: a revision of the 100,000-item base is estimated at some 34 MB, more than the default 64 MiB cache gives documents (half of it), so with the default every write would rebuild the base from the store, with or without views.")
    var cacheMegabytes = 512

    @Option(help: "The listdelta binary to measure (default: the one built beside this benchmark).")
    var binary: String?

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listdelta-bench-views-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(
            binary: binary ?? ServerProcess.siblingBinary(), arguments: ["--data", directory, "--allow-anonymous-writes"],
            environment: [
                "LISTDELTA_MAX_BODY_BYTES": String(64 << 20), "LISTDELTA_LOG_LEVEL": "error", "LISTDELTA_CACHE_BYTES": String(cacheMegabytes << 20),
            ])
        defer { server.stop() }
        let client = BenchHTTPClient(port: server.port)
        try server.waitUntilReady(client)
        var base = ListEditor(count: items, shape: .views)
        var plain = ListEditor(count: items, shape: .views)
        for list in ["base", "plain"] {
            let created = try client.request("PUT", "/v1/lists/\(list)", headers: ["Content-Type": "application/json"], body: base.body())
            guard created.status == 201 else { throw ValidationError("creating \(list) failed: \(created.status)") }
        }

        var views = 0
        for count in counts {
            while views < count {
                let response = try client.request(
                    "PUT", "/v1/lists/view-\(views)/view", headers: ["Content-Type": "application/json"], body: Array(Self.definition(views).utf8))
                guard response.status == 201 else {
                    throw ValidationError("PUT view failed: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
                }
                views += 1
            }
            // Warm-up: the views' updaters build their indexes on the first write after they were attached.
            for _ in 0..<2 {
                _ = try write(&base, client, views: views)
                _ = try write(&plain, to: "plain", client, views: 0)
            }
            var writes: [Double] = []
            var baselines: [Double] = []
            var follows: [Double] = []
            var diffs: [Double] = []
            for run in 0..<runs {
                let before = views > 1 ? try revision(of: "view-1", client) : 0
                // In turns, which of the two goes first: the first write after the wait for the views finds colder
                // caches than the one right after it.
                if run % 2 == 1 { baselines.append(try self.write(&plain, to: "plain", client, views: 0).write) }
                let (write, follow) = try self.write(&base, client, views: views)
                if run % 2 == 0 { baselines.append(try self.write(&plain, to: "plain", client, views: 0).write) }
                writes.append(write)
                follows.append(follow)
                if views > 1 {
                    diffs.append(try onceMilliseconds {
                        let response = try client.request("GET", "/v1/lists/view-1/diff?from=\(before)", headers: ["Accept-Encoding": "identity"])
                        guard response.status == 200 else { throw ValidationError("view diff failed: \(response.status)") }
                    })
                }
            }
            let writeMs = median(writes)
            let baselineMs = median(baselines)
            var line = "views base_items=\(items) views=\(views) write_ms=\(format(writeMs)) all_views_ms=\(format(median(follows)))"
            line += diffs.isEmpty ? "" : " view_diff_ms=\(format(median(diffs)))"
            line += " no_views_write_ms=\(format(baselineMs)) write_ratio=\(format(writeMs / baselineMs))"
            print(line)
        }
        print("views cache_mb=\(cacheMegabytes) command=\"swift build -c release --product listdelta && swift build -c release --product listdelta-bench && .build/release/listdelta-bench views\"")
    }

    /// Sends one 10-operation PATCH of the base, then polls every view until its `basedOn` reaches the new revision.
    /// - Returns: The PATCH's acknowledgement and the time until every view followed, in milliseconds from sending.
    private func write(_ base: inout ListEditor, to list: String = "base", _ client: BenchHTTPClient, views: Int) throws -> (write: Double, follow: Double) {
        let body = base.patch(10)
        let start = ContinuousClock.now
        let response = try client.request("PATCH", "/v1/lists/\(list)", headers: ["Content-Type": "application/json-patch+json"], body: body)
        let acknowledged = ContinuousClock.now
        guard response.status == 200, let revision = Int(response.headers["etag"]?.filter(\.isNumber) ?? "") else {
            throw ValidationError("PATCH failed: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        var waiting = Array(0..<views)
        let deadline = start + .seconds(30)
        while !waiting.isEmpty {
            guard ContinuousClock.now < deadline else { throw ValidationError("views \(waiting.prefix(5)) did not reach revision \(revision)") }
            waiting = try waiting.filter { try basedOn(of: "view-\($0)", client) < revision }
            if !waiting.isEmpty { usleep(200) }
        }
        return (milliseconds(acknowledged - start), milliseconds(ContinuousClock.now - start))
    }

    private func basedOn(of view: String, _ client: BenchHTTPClient) throws -> Int {
        let response = try client.request("GET", "/v1/lists/\(view)/view")
        guard response.status == 200, case .object(let object)? = try? JSONReader().read(response.body),
            case .number(let number)? = object["basedOn"], let basedOn = number.intValue
        else { throw ValidationError("GET view failed: \(response.status)") }
        return basedOn
    }

    private func revision(of list: String, _ client: BenchHTTPClient) throws -> Int {
        let response = try client.request("GET", "/v1/lists/\(list)/sections")
        guard response.status == 200, case .object(let object)? = try? JSONReader().read(response.body),
            case .number(let number)? = object["revision"], let revision = number.intValue
        else { throw ValidationError("GET sections failed: \(response.status)") }
        return revision
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    /// View `index`'s definition: a quarter each of a category filter (about 5% of the base, one section), the 20
    /// unread items of highest score, a narrow score range grouped by category, and two categories by version,
    /// limited to 50, in the base's sections.
    static func definition(_ index: Int) -> String {
        switch index % 4 {
        case 0:
            return #"{"of":"base","where":[{"path":"/model/cat","op":"eq","value":"c\#(index % 20)"}],"sections":"none"}"#
        case 1:
            return #"{"of":"base","where":[{"path":"/model/unread","op":"eq","value":true}],"sort":[{"path":"/model/score","order":"desc"}],"limit":20}"#
        case 2:
            let low = index * 97 % 99_000
            return #"{"of":"base","where":[{"path":"/model/score","op":"gte","value":\#(low)},{"path":"/model/score","op":"lt","value":\#(low + 1_000)}],"sort":[{"path":"/model/n","order":"asc"}],"sections":{"by":"/model/cat"}}"#
        default:
            return #"{"of":"base","where":[{"path":"/model/cat","op":"in","value":["c\#(index % 20)","c\#((index + 7) % 20)"]}],"sort":[{"path":"/model/v","order":"desc"}],"limit":50,"sections":"keep"}"#
        }
    }
}

extension ListEditor.Shape {
    /// The views benchmark's items: a category, a score, an unread flag and a version, the whole model replaced by
    /// an update.
    static let views = ListEditor.Shape(
        seed: 11,
        model: { id, version in
            let score = (id &* 7_919 &+ version &* 104_729) % 100_000
            return #"{"n":\#(id),"cat":"c\#(id % 20)","score":\#(score),"unread":\#((id + version) % 3 == 0),"v":\#(version)}"#
        },
        update: { index, model, _ in #"{"op":"replace","path":"/sections/0/items/\#(index)/model","value":\#(model)}"# })
}
