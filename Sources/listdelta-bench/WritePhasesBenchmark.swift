import ArgumentParser
import ListDeltaCore

/// `listdelta-bench write-phases`: the parts of one write of a large list, timed one by one in process (no HTTP,
/// no store), so a change to one of them shows where a write's time goes.
struct WritePhasesBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write-phases",
        abstract: "Times the phases of a PUT and a PATCH of a large list: parse, validate, typed read, patch, diff, render."
    )

    @Option(help: "Items in the list.")
    var items = 100_000

    @Option(help: "Timed runs per phase (after one warm-up); the median is printed.")
    var runs = 7

    @Option(help: "Operations of the costliest patch timed (the service's maxPatchOperations).")
    var maximumPatchOperations = 1_000

    @Option(help: "Time only this phase (for a profiler); the others are skipped.")
    var only: String?

    func run() throws {
        var editor = ListEditor(count: items)
        let factory = DataProviderFactory(limits: DocumentLimits())
        let reader = JSONReader(maximumDepth: 64)
        let old = try factory.makeDocument(from: try reader.read(editor.body()), listID: "bench", revision: 1)
        editor.edit(10)
        let body = editor.body()
        var figures: [(String, Double)] = []
        func time(_ name: String, _ body: () throws -> Void) throws {
            guard only == nil || only == name else { return }
            figures.append((name, try medianMilliseconds(runs: runs, body)))
        }
        try time("parse") { blackHole(try reader.read(body)) }
        let parsed = try reader.read(body)
        try time("validate") { blackHole(try factory.makeDocument(from: parsed, listID: "bench", revision: 2)) }
        let new = try factory.makeDocument(from: parsed, listID: "bench", revision: 2)
        // What a PUT does instead of parse + validate, when the body is read straight into items.
        try time("read_typed") { blackHole(factory.readDocument(json: body, listID: "bench", revision: 2, maximumDepth: 64)) }
        guard factory.readDocument(json: body, listID: "bench", revision: 2, maximumDepth: 64) == new else {
            throw ValidationError("the typed reader should read the benchmark's body as the general path does")
        }
        try time("diff") { blackHole(ListDiff(from: old, to: new)) }
        try time("render_diff") { blackHole(JSONWriter.bytes(of: ListDiff(from: old, to: new).jsonValue)) }
        try time("document_json") { blackHole(JSONWriter.bytes(of: new.jsonValue)) }
        // The size bound every write checks (maxDocumentBytes), against the diff it makes anyway.
        try time("document_bytes") { blackHole(new.compactJSONLength(upTo: DocumentLimits().maximumDocumentBytes)) }
        // The floor of any change to a cached document: its items copied once (then freed).
        try time("copy_items") {
            var copy = new
            copy.sections[0].items.remove(at: 0)
            blackHole(copy)
        }
        let patch = try JSONPatch(json: try reader.read(editor.patch(10)))
        try time("patch_items") { blackHole(patch.applyToItems(of: new, limits: DocumentLimits())) }
        guard let patched = patch.applyToItems(of: new, limits: DocumentLimits()) else {
            throw ValidationError("the benchmark's patch should apply to the items")
        }
        try time("patch_diff") { blackHole(ListDiff(from: new, to: patched)) }
        try time("patch_general") {
            blackHole(try factory.makeDocument(from: try patch.apply(to: new.jsonValue), listID: "bench", revision: 3))
        }
        // The costliest patch a client may send by default (maxPatchOperations inserts at the front, each moving the
        // whole item array), typed; and the same with a last operation that fails, which the general path then
        // applies again to the document as JSON to word the failure.
        let inserts = (0..<maximumPatchOperations - 1).map { #"{"op":"add","path":"/sections/0/items/0","value":{"id":"w\#($0)"}}"# }
        let worst = try JSONPatch(json: try reader.read("[" + (inserts + [#"{"op":"add","path":"/sections/0/items/0","value":{"id":"w-1"}}"#]).joined(separator: ",") + "]"))
        try time("worst_patch") { blackHole(worst.applyToItems(of: new, limits: DocumentLimits())) }
        let failing = try JSONPatch(json: try reader.read("[" + (inserts + [#"{"op":"remove","path":"/sections/9"}"#]).joined(separator: ",") + "]"))
        try time("worst_failing_patch") {
            blackHole(failing.applyToItems(of: new, limits: DocumentLimits()))
            blackHole(try? failing.apply(to: new.jsonValue))
        }
        let line = figures.map { "\($0.0)_ms=\(format($0.1))" }.joined(separator: " ")
        print("write_phases items=\(items) \(line)")
    }
}
