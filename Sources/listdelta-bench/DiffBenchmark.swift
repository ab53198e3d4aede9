import ArgumentParser
import Foundation
import ListDeltaCore

/// `listdelta-bench diff`: ListDelta's diff against the standard library's, in the same run.
struct DiffBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Times ListDiff against difference(from:).inferringMoves() over the id arrays."
    )

    @Option(help: "Comma-separated item counts.")
    var sizes = "1000,10000,100000"

    @Option(help: "Comma-separated scenarios (small, heavy, shuffle, sectioned).")
    var scenarios = DiffScenario.names.joined(separator: ",")

    @Option(help: "Timed runs per case (after one warm-up); the median is printed.")
    var runs = 5

    @Option(help: "Skip the standard library where one run is predicted to exceed this many seconds.")
    var stdlibBudget = 10.0

    func run() throws {
        for count in sizes.split(separator: ",").compactMap({ Int($0) }) {
            for name in scenarios.split(separator: ",").map(String.init) {
                let scenario = DiffScenario.make(name, count: count, seed: 42)
                var moves = 0
                let ours = medianMilliseconds(runs: runs) {
                    let diff = ListDiff(from: scenario.old, to: scenario.new)
                    moves = diff.items.moved.count + diff.sections.moved.count
                    blackHole(diff)
                }
                let stdlib = stdlibMilliseconds(name: name, count: count)
                let stdlibText = stdlib.map(format) ?? "skipped"
                let ratio = stdlib.map { format(ours / $0) } ?? "skipped"
                print("diff n=\(count) scenario=\(name) listdelta_ms=\(format(ours)) stdlib_ms=\(stdlibText) ratio=\(ratio)")
                printToStandardError("  (\(name) n=\(count): \(moves) moves reported)")
            }
        }
    }

    /// The stdlib's median, or nil when one run is predicted to exceed the budget.
    ///
    /// The prediction times one run at a tenth of the size and scales it by 100 (the differ is O(*n*·*d*) and
    /// *d* grows with *n* in every scenario); it recurses down to 1,000 items.
    private func stdlibMilliseconds(name: String, count: Int) -> Double? {
        guard predictedStdlibMilliseconds(name: name, count: count) <= stdlibBudget * 1_000 else { return nil }
        let scenario = DiffScenario.make(name, count: count, seed: 42)
        let old = DiffScenario.ids(scenario.old)
        let new = DiffScenario.ids(scenario.new)
        return medianMilliseconds(runs: runs) { blackHole(new.difference(from: old).inferringMoves()) }
    }

    private func predictedStdlibMilliseconds(name: String, count: Int) -> Double {
        guard count > 1_000 else { return 0 }
        let smaller = count / 10
        let smallerPrediction = predictedStdlibMilliseconds(name: name, count: smaller)
        guard smallerPrediction <= stdlibBudget * 1_000 else { return smallerPrediction * 100 }
        let scenario = DiffScenario.make(name, count: smaller, seed: 42)
        let old = DiffScenario.ids(scenario.old)
        let new = DiffScenario.ids(scenario.new)
        return onceMilliseconds { blackHole(new.difference(from: old).inferringMoves()) } * 100
    }
}

/// Prints a detail line on standard error, so standard output keeps one line per case.
func printToStandardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
