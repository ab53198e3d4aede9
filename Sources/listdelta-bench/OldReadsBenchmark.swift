import ArgumentParser
import Foundation

extension ServiceBenchmark {
    /// Old revisions read after a crash: a 100-item list (about 10 KB) rewritten wholesale `rewrites` times, the
    /// server killed and started again, its current document read once, then every retained revision read in random
    /// order, each once (a rebuild each time: nothing of it is in memory). Prints the latencies' p50, p99 and max.
    func oldReadsAfterRestart(
        _ server: inout ServerProcess, _ client: inout BenchHTTPClient, restart: () throws -> (ServerProcess, BenchHTTPClient)
    ) throws {
        let json = ["Content-Type": "application/json"]
        var listBytes = 0
        for revision in 1...rewrites {
            let items = (0..<100).map { #"{"id":"r\#(revision)-\#($0)","model":{"title":"item \#($0) of revision \#(revision)","n":\#($0),"detail":"a line of detail that makes the item about a hundred bytes"}}"# }
            let body = Array(#"{"kind":"array","title":"Rewritten","items":["#.utf8) + Array(items.joined(separator: ",").utf8) + Array("]}".utf8)
            listBytes = body.count
            let response = try client.request("PUT", "/v1/lists/rewritten", headers: json, body: body)
            guard response.status == 200 || response.status == 201 else { throw ValidationError("rewrite failed: \(response.status)") }
        }
        server.kill()
        (server, client) = try restart()
        guard try client.request("GET", "/v1/lists/rewritten").status == 200 else { throw ValidationError("read failed") }
        var generator = SystemRandomNumberGenerator()
        var samples: [Double] = []
        for revision in (1..<rewrites).shuffled(using: &generator) {
            samples.append(try onceMilliseconds {
                let response = try client.request("GET", "/v1/lists/rewritten?revision=\(revision)")
                guard response.status == 200 else { throw ValidationError("GET ?revision=\(revision) answered \(response.status)") }
            })
        }
        samples.sort()
        let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
        print("service old_reads_after_restart rewrites=\(rewrites) list_bytes=\(listBytes) reads=\(samples.count) p50_ms=\(format(median(samples))) p99_ms=\(format(p99)) max_ms=\(format(samples.last ?? 0))")
    }
}
