
/// The list every fuzzed document is diffed against, forwards and backwards.
private let base: ListDocument = {
    let text = #"""
        {"sections":[{"id":"a","title":"A","indexTitle":"A","items":[{"id":"1","model":{"x":1}},{"id":"2"},{"id":"3","type":"T","cell":"C"}]},
                     {"id":"b","items":[{"id":"4","model":[1,2]},{"id":"5"}]},{"id":"c","title":null,"items":[]}]}
        """#
    return try! DataProviderFactory().makeDocument(from: try! JSONReader().read(text), listID: "fuzz", revision: 1)
}()

/// Reads the input as a write body; whatever the factory accepts must round-trip and diff exactly both ways and
/// undo back through their inverse; the typed reader a PUT tries first must accept nothing the general path refuses and read what it accepts alike.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var limits = DocumentLimits()
    limits.maximumItems = 2_000
    let factory = DataProviderFactory(limits: limits)
    let typed = factory.readDocument(json: Array(bytes), listID: "fuzz", revision: 2, maximumDepth: 64)
    guard let value = try? JSONReader(maximumDepth: 64).read(bytes) else {
        precondition(typed == nil, "the typed reader accepts what is not JSON")
        return 0
    }
    guard let document = try? factory.makeDocument(from: value, listID: "fuzz", revision: 2) else {
        precondition(typed == nil, "the typed reader accepts an invalid document")
        return 0
    }
    precondition(typed == nil || typed == document, "the typed reader reads the document differently")
    // What is served reads back to the same document.
    let served = JSONWriter.bytes(of: document.jsonValue)
    let reread = try! factory.makeDocument(from: try! JSONReader(maximumDepth: 80).read(served), listID: "fuzz", revision: 2)
    precondition(reread == document, "served document does not read back")
    // The size a document is bounded by is the size it is served at.
    precondition(document.compactJSONLength(upTo: .max) == served.count, "the counted size is not the served one")
    precondition(document.compactJSONLength(upTo: served.count - 1) == nil, "the count does not stop past its limit")
    for (old, new) in [(base, document), (document.withRevision(1), base.withRevision(2))] {
        let diff = ListDiff(from: old, to: new)
        let applied = try! diff.apply(to: old)
        precondition(applied.sections == new.sections, "batch diff does not replay")
        let patched = try! JSONPatch(diff: diff, from: old, to: new).apply(to: old.jsonValue)
        precondition(patched == new.jsonValue, "JSON Patch does not replay")
        // The undo diff a write stores leads back, through the chunked replayer that rebuilds old revisions.
        var replayer = DiffReplayer(new)
        try! replayer.apply(try! diff.inverted(from: old))
        precondition(replayer.document.sections == old.sections, "the inverse diff does not lead back")
    }
    return 0
}

extension ListDocument {
    fileprivate func withRevision(_ revision: Int) -> ListDocument {
        var copy = self
        copy.revision = revision
        return copy
    }
}
