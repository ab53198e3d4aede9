import ArgumentParser
import Foundation
import ListDeltaCore
import ListDeltaSQLite

/// `listdelta-bench service`: the service's own figures, through real HTTP on loopback.
struct ServiceBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service",
        abstract: "Times writes and diffs of a large list through the service, and measures disk per revision."
    )

    @Option(help: "Items in the list.")
    var items = 100_000

    @Option(help: "Revisions written for the disk figure (10 edits each).")
    var revisions = 1_000

    @Option(help: "Wholesale rewrites of a 100-item list whose old revisions are read after a restart.")
    var rewrites = 600

    @Option(help: "Timed requests per latency figure (median printed).")
    var runs = 9

    @Option(help: "The listdelta binary to measure (default: the one built beside this benchmark).")
    var binary: String?

    func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listdelta-bench-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The real server in its own process: its allocator settings, threads and configuration are the ones
        // measured, and this client does not share its CPU time or heap.
        func startServer() throws -> (ServerProcess, BenchHTTPClient) {
            let server = try ServerProcess(
                binary: binary ?? ServerProcess.siblingBinary(),
                arguments: ["--data", directory, "--retention", String(max(revisions, rewrites) + 200), "--allow-anonymous-writes"],
                environment: ["LISTDELTA_MAX_BODY_BYTES": String(64 << 20), "LISTDELTA_LOG_LEVEL": "error"]
            )
            let client = BenchHTTPClient(port: server.port)
            try server.waitUntilReady(client)
            return (server, client)
        }
        var (server, client) = try startServer()
        defer { server.stop() }
        var editor = ListEditor(count: items)
        let json = ["Content-Type": "application/json"]
        let created = try client.request("PUT", "/v1/lists/bench", headers: json, body: editor.body())
        guard created.status == 201 else { throw ValidationError("create failed: \(created.status)") }
        // The disk a list of one revision takes, measured with the server stopped (the store is then all ours).
        server.stop()
        let snapshotBytes = try diskBytes(directory)
        (server, client) = try startServer()

        // The bodies are built before the clock starts: a figure of the service, not of this client's JSON.
        var bodies: [[UInt8]] = (0...runs).map { _ in
            editor.edit(10)
            return editor.body()
        }
        bodies.reverse()
        let put = try medianMilliseconds(runs: runs) {
            let response = try client.request("PUT", "/v1/lists/bench", headers: json, body: bodies.removeLast())
            guard response.status == 200 else { throw ValidationError("PUT failed: \(response.status)") }
        }
        print("service put_10_of_\(items)_ms=\(format(put)) command=\"listdelta-bench service --items \(items)\"")

        let patchHeaders = ["Content-Type": "application/json-patch+json"]
        let patch = try medianMilliseconds(runs: runs) {
            let response = try client.request("PATCH", "/v1/lists/bench", headers: patchHeaders, body: editor.patch(10))
            guard response.status == 200 else { throw ValidationError("PATCH failed: \(response.status) \(String(decoding: response.body, as: UTF8.self))") }
        }
        print("service patch_10_of_\(items)_ms=\(format(patch))")

        // Enough revisions for diffs across 100 of them, then the disk figure.
        var written = 1 + 2 * runs + 2
        while written < revisions {
            let response = try client.request("PATCH", "/v1/lists/bench", headers: patchHeaders, body: editor.patch(10))
            guard response.status == 200 else { throw ValidationError("PATCH failed: \(response.status)") }
            written += 1
        }
        let current = written
        // History: a diff from K revisions back to the current one (a client that was away), each run from a
        // revision no run asked for before. Measured first, before anything read the stored undo diffs: the
        // first request 900 back walks them all from the store (printed as _first_), the next ones find most
        // of them already read.
        func diffToCurrent(from revision: Int) throws {
            let response = try client.request("GET", "/v1/lists/bench/diff?from=\(revision)")
            guard response.status == 200 else { throw ValidationError("diff failed: \(response.status)") }
        }
        for back in [900, 100, 10] where back + runs + 1 < current {
            if back == 900 {
                let first = try onceMilliseconds { try diffToCurrent(from: current - back - runs - 1) }
                print("service diff_from_900_back_first_ms=\(format(first))")
            }
            var offset = 0
            let fromBack = try medianMilliseconds(runs: runs) {
                offset += 1
                try diffToCurrent(from: current - back - offset)
            }
            print("service diff_from_\(back)_back_ms=\(format(fromBack))")
        }
        var pair = 0
        let diff = try medianMilliseconds(runs: runs) {
            // A different pair each run, so every request is computed (nothing cached).
            pair += 1
            let to = current - pair
            let response = try client.request("GET", "/v1/lists/bench/diff?from=\(to - 100)&to=\(to)")
            guard response.status == 200 else { throw ValidationError("diff failed: \(response.status)") }
        }
        print("service diff_across_100_revisions_of_\(items)_ms=\(format(diff))")

        // A binary from before the history endpoints answers 404 there: its diff figures above still compare.
        guard try client.request("GET", "/v1/lists/bench/revisions?limit=1").status == 200 else {
            print("service history_page_ms=unsupported revert_ms=unsupported")
            return
        }
        let historyPage = try medianMilliseconds(runs: runs) {
            let response = try client.request("GET", "/v1/lists/bench/revisions?limit=100")
            guard response.status == 200 else { throw ValidationError("history failed: \(response.status)") }
        }
        print("service history_page_ms=\(format(historyPage))")

        server.stop()
        let totalBytes = try diskBytes(directory)
        let ratio = Double(totalBytes) / Double(snapshotBytes)
        print("service revisions=\(written) edits_per_revision=10 disk_bytes=\(totalBytes) one_snapshot_bytes=\(snapshotBytes) ratio=\(format(ratio)) bytes_per_revision=\((totalBytes - snapshotBytes) / max(1, written - 1))")

        // Undo: reverts write revisions of their own, so they come after the disk figure, on a restarted server
        // whose current document is read once first.
        (server, client) = try startServer()
        guard try client.request("GET", "/v1/lists/bench").status == 200 else { throw ValidationError("read failed") }
        var reverted = current
        let revert = try medianMilliseconds(runs: runs) {
            // Back to the content of 50 revisions ago: a new revision each time.
            let response = try client.request("POST", "/v1/lists/bench/revert", headers: json, body: Array("{\"to\":\(reverted - 50)}".utf8))
            guard response.status == 200 else { throw ValidationError("revert failed: \(response.status)") }
            reverted += 1
        }
        print("service revert_ms=\(format(revert))")
        server.stop()
        (server, client) = try startServer()
        try oldReadsAfterRestart(&server, &client, restart: startServer)
    }

    /// The database's size after folding its write-ahead log in (what the revisions really cost on disk).
    private func diskBytes(_ directory: String) throws -> Int {
        let store = try SQLiteStore(configuration: SQLiteStoreConfiguration(directory: directory))
        try store.checkpointWAL()
        return try store.databaseSizeBytes()
    }
}

/// A large list and random edits of it, as whole documents (PUT) or JSON Patches (PATCH).
struct ListEditor {
    /// What the items look like: each one's model at a version, and the operation a patch sends to bring the item
    /// at an index to its next version.
    struct Shape: Sendable {
        var seed: UInt64
        var model: @Sendable (_ id: Int, _ version: Int) -> String
        var update: @Sendable (_ index: Int, _ model: String, _ version: Int) -> String

        /// `{"text","v"}`, a patch replacing `v` alone.
        static let text = Shape(
            seed: 7, model: { id, version in "{\"text\":\"item \(id)\",\"v\":\(version)}" },
            update: { index, _, version in "{\"op\":\"replace\",\"path\":\"/sections/0/items/\(index)/model/v\",\"value\":\(version)}" })
    }

    private var ids: [Int]
    private var models: [Int: Int] = [:]
    private var nextID: Int
    private var generator: SplitMix64
    private let shape: Shape

    init(count: Int, shape: Shape = .text) {
        ids = Array(0..<count)
        nextID = count
        generator = SplitMix64(seed: shape.seed)
        self.shape = shape
    }

    private func item(_ id: Int) -> String {
        "{\"id\":\"item-\(id)\",\"type\":\"Text\",\"model\":\(shape.model(id, models[id] ?? 0))}"
    }

    func body() -> [UInt8] {
        Array(("{\"kind\":\"array\",\"title\":\"Bench\",\"items\":[" + ids.map(item).joined(separator: ",") + "]}").utf8)
    }

    /// `count` edits: a quarter content updates, moves, deletes and inserts.
    mutating func edit(_ count: Int) {
        for step in 0..<count {
            switch step % 4 {
            case 0: models[ids[Int.random(in: ids.indices, using: &generator)], default: 0] += 1
            case 1:
                let id = ids.remove(at: Int.random(in: ids.indices, using: &generator))
                ids.insert(id, at: Int.random(in: 0...ids.count, using: &generator))
            case 2: ids.remove(at: Int.random(in: ids.indices, using: &generator))
            default:
                nextID += 1
                ids.insert(nextID, at: Int.random(in: 0...ids.count, using: &generator))
            }
        }
    }

    /// `count` edits as a JSON Patch against the current list, applied to this editor's copy too.
    mutating func patch(_ count: Int) -> [UInt8] {
        var operations: [String] = []
        for step in 0..<count {
            switch step % 4 {
            case 0:
                let index = Int.random(in: ids.indices, using: &generator)
                models[ids[index], default: 0] += 1
                let version = models[ids[index]]!
                operations.append(shape.update(index, shape.model(ids[index], version), version))
            case 1:
                let from = Int.random(in: ids.indices, using: &generator)
                let id = ids.remove(at: from)
                let to = Int.random(in: 0...ids.count, using: &generator)
                ids.insert(id, at: to)
                operations.append("{\"op\":\"move\",\"from\":\"/sections/0/items/\(from)\",\"path\":\"/sections/0/items/\(to)\"}")
            case 2:
                let index = Int.random(in: ids.indices, using: &generator)
                ids.remove(at: index)
                operations.append("{\"op\":\"remove\",\"path\":\"/sections/0/items/\(index)\"}")
            default:
                nextID += 1
                let index = Int.random(in: 0...ids.count, using: &generator)
                ids.insert(nextID, at: index)
                operations.append("{\"op\":\"add\",\"path\":\"/sections/0/items/\(index)\",\"value\":\(item(nextID))}")
            }
        }
        return Array(("[" + operations.joined(separator: ",") + "]").utf8)
    }
}
