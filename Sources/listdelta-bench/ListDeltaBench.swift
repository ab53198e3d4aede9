import ArgumentParser

/// `listdelta-bench`: release-mode benchmarks that print one line of figures per case.
@main
struct ListDeltaBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listdelta-bench",
        abstract: "ListDelta's benchmarks; build with -c release.",
        subcommands: [AuthBenchmark.self, DiffBenchmark.self, FeedBenchmark.self, JSONBenchmark.self, MemoryBenchmark.self, QueriesBenchmark.self, ServiceBenchmark.self, ViewsBenchmark.self, WritePhasesBenchmark.self]
    )
}
