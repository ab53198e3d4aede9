import ArgumentParser
import Foundation
import ListDeltaCore

/// `listdelta-bench memory`: what documents really take (the growth of the process's resident memory, the
/// allocator's rounding and headers included) against
/// `ListDocument.estimatedHeapBytes`, the figure the service's document cache charges; a ratio near 1 means the
/// cache's byte budget bounds memory.
struct MemoryBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Compares the heap documents take with the cache's estimate of it."
    )

    @Option(help: "Items in the large list.")
    var items = 100_000

    func run() throws {
        let factory = DataProviderFactory(limits: DocumentLimits())
        // The load test's small sectioned list (1,000 of them), then the benchmark's large one, each read as a PUT
        // reads it.
        let small = (1...3).map { section in
            let items = (0..<10).map { item in
                #"{"id":"i\#(section)-\#(item)","cell":"C","model":{"n":\#(item),"text":"item \#(section)-\#(item)"}}"#
            }
            return #"{"id":"s\#(section)","title":"Section \#(section)","items":[\#(items.joined(separator: ","))]}"#
        }
        try measure("small", body: Array(#"{"kind":"sections","sections":[\#(small.joined(separator: ","))]}"#.utf8), factory: factory, copies: 1_000)
        try measure("large", body: ListEditor(count: items).body(), factory: factory)
    }

    /// Reads `copies` documents from `body` and prints the heap they hold against their estimate.
    private func measure(_ name: String, body: [UInt8], factory: DataProviderFactory, copies: Int = 1) throws {
        // Freed memory handed back first, so the documents cannot hide in it.
        _ = benchMallocTrim(0)
        let before = try residentBytes()
        var documents: [ListDocument] = []
        documents.reserveCapacity(copies)
        for _ in 0..<copies {
            guard let document = factory.readDocument(json: body, listID: "bench", revision: 1, maximumDepth: 64) else {
                throw ValidationError("the \(name) body should be read")
            }
            documents.append(document)
        }
        let actual = try residentBytes() - before
        let estimated = documents.reduce(0) { $0 + $1.estimatedHeapBytes }
        let items = documents[0].itemCount
        print("memory document=\(name) items=\(items) copies=\(copies) actual_bytes_per_item=\(format(Double(actual) / Double(items * copies))) estimated_bytes_per_item=\(format(Double(estimated) / Double(items * copies))) ratio=\(format(Double(estimated) / Double(actual)))")
        blackHole(documents)
    }

    /// The process's resident memory, from `/proc/self/statm`.
    private func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { throw ValidationError("cannot read /proc/self/statm") }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

@_silgen_name("malloc_trim")
private func benchMallocTrim(_ pad: Int) -> Int32
