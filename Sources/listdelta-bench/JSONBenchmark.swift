import ArgumentParser
import Foundation
import ListDeltaCore

/// `listdelta-bench json`: ListDelta's JSON reader and writer against Foundation's, in the same run.
struct JSONBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json",
        abstract: "Times JSONReader/JSONWriter against JSONSerialization on a list document."
    )

    @Option(help: "Items in the document.")
    var count = 100_000

    @Option(help: "Timed runs per case (after one warm-up).")
    var runs = 5

    func run() throws {
        let document = DiffScenario.make("sectioned", count: count, seed: 42).old
        let bytes = JSONWriter.bytes(of: document.jsonValue)
        let data = Data(bytes)
        let ours = medianMilliseconds(runs: runs) { blackHole(try? JSONReader().read(bytes)) }
        let foundation = medianMilliseconds(runs: runs) { blackHole(try? JSONSerialization.jsonObject(with: data)) }
        print("json read n=\(count) bytes=\(bytes.count) listdelta_ms=\(format(ours)) foundation_ms=\(format(foundation)) ratio=\(format(ours / foundation))")
        let value = document.jsonValue
        let object = try JSONSerialization.jsonObject(with: data)
        let write = medianMilliseconds(runs: runs) { blackHole(JSONWriter.bytes(of: value)) }
        let foundationWrite = medianMilliseconds(runs: runs) { blackHole(try? JSONSerialization.data(withJSONObject: object)) }
        print("json write n=\(count) listdelta_ms=\(format(write)) foundation_ms=\(format(foundationWrite)) ratio=\(format(write / foundationWrite))")
    }
}
