import ArgumentParser
import Foundation
import ListDeltaAccess

/// `listdelta-bench auth`: what a scoped token costs on the hot path. Two servers run side by side, one with public
/// reads and one with `readAccess: token`; wrk sends conditional GETs of one list to each in turn (each answered
/// 304 from memory), without and with a bearer token, and the medians of the rounds are compared as a ratio.
struct AuthBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Compares 304 polls with a scoped token against public ones, with wrk (Debian's wrk package)."
    )

    @Option(help: "Rounds per server (alternating; the median is printed).")
    var rounds = 5

    @Option(help: "Seconds per wrk run.")
    var seconds = 4

    @Option(help: "wrk connections.")
    var connections = 16

    @Option(help: "The listdelta binary to measure (default: the one built beside this benchmark).")
    var binary: String?

    @Option(help: "The wrk binary.")
    var wrk = "/usr/bin/wrk"

    func run() throws {
        guard FileManager.default.isExecutableFile(atPath: wrk) else { throw ValidationError("no wrk at \(wrk): apt-get install wrk") }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("listdelta-bench-auth-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let secret = "bench-secret-0123456789-abcdefghijklmnop"
        let quiet = ["LISTDELTA_LOG_LEVEL": "error"]
        let publicServer = try ServerProcess(binary: binary ?? ServerProcess.siblingBinary(), arguments: ["--data", root + "/public"], environment: quiet)
        defer { publicServer.stop() }
        let tokenServer = try ServerProcess(
            binary: binary ?? ServerProcess.siblingBinary(), arguments: ["--data", root + "/token", "--read-access", "token"],
            environment: quiet.merging(["LISTDELTA_JWT_SECRET": secret, "LISTDELTA_WRITE_TOKENS": "bench-static"]) { $1 })
        defer { tokenServer.stop() }
        let token = try waitForTask {
            try await TokenMinter.hs256(secret: secret).token(scope: .read, lists: ["team-7-*", "bench"], lifetime: 3_600)
        }
        let body = Array(#"{"kind":"array","title":"Bench","items":["#.utf8) + Array((0..<100).map { #"{"id":"i\#($0)","model":{"n":\#($0)}}"# }.joined(separator: ",").utf8) + Array("]}".utf8)
        for (server, headers) in [(publicServer, [String: String]()), (tokenServer, ["Authorization": "Bearer bench-static"])] {
            let client = BenchHTTPClient(port: server.port)
            try server.waitUntilReady(client)
            let created = try client.request("PUT", "/v1/lists/bench", headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: body)
            guard created.status == 201 else { throw ValidationError("create failed: \(created.status)") }
        }
        // A third run sends the same header to the public server, which ignores it: what the token's bytes cost
        // (sending and parsing ~200 more bytes a request) apart from checking it.
        var publicRates: [Double] = []
        var tokenRates: [Double] = []
        var ignoredRates: [Double] = []
        let condition = "If-None-Match: \"1\""
        let authorization = "Authorization: Bearer \(token)"
        for _ in 0..<rounds {
            publicRates.append(try requestsPerSecond(port: publicServer.port, headers: [condition]))
            tokenRates.append(try requestsPerSecond(port: tokenServer.port, headers: [condition, authorization]))
            ignoredRates.append(try requestsPerSecond(port: publicServer.port, headers: [condition, authorization]))
        }
        let (tokenMedian, publicMedian, ignoredMedian) = (median(tokenRates), median(publicRates), median(ignoredRates))
        print(
            "auth poll_304_rps_token=\(Int(tokenMedian)) poll_304_rps_public=\(Int(publicMedian)) ratio=\(format(tokenMedian / publicMedian))"
                + " poll_304_rps_public_token_ignored=\(Int(ignoredMedian)) ratio_to_ignored=\(format(tokenMedian / ignoredMedian))"
                + " token_bytes=\(token.utf8.count) rounds=\(rounds) seconds=\(seconds) connections=\(connections) command=\"listdelta-bench auth\"")
    }

    /// One wrk run's requests per second; every answer must be a 304 (wrk counts any other as non-2xx/3xx, and
    /// a 200 would mean the condition did not hold).
    private func requestsPerSecond(port: Int, headers: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t1", "-c\(connections)", "-d\(seconds)s"] + headers.flatMap { ["-H", $0] } + ["http://127.0.0.1:\(port)/v1/lists/bench"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard !text.contains("Non-2xx or 3xx responses"), let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
        else {
            throw ValidationError("wrk failed or got errors:\n\(text)")
        }
        return rate
    }
}
