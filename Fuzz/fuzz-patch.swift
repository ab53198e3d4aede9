
private let document: JSONValue = {
    let text = #"""
        {"id":"fuzz","kind":"sections","revision":1,"cells":{"T":"C"},"sections":[
          {"id":"a","title":"A","indexTitle":"A","items":[{"id":"1","cell":null,"model":{"x":[1,2,{"y":null}]}},{"id":"2","cell":null,"model":null}]},
          {"id":"b","title":null,"indexTitle":null,"items":[{"id":"3","type":"T","cell":"C","model":"s"}]}]}
        """#
    return try! JSONReader().read(text)
}()

/// What one patch may copy in all here (the service's is `maxDocumentBytes`).
private let copyBudget = 65_536

/// Reads the input as a JSON Patch and applies it, with the bounds the service applies: it must fail cleanly or
/// give JSON that validates or is rejected cleanly, no larger than the document, what the patch brought and what
/// it may copy; a failed patch leaves the document as it was.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSONReader(maximumDepth: 64).read(bytes), let patch = try? JSONPatch(json: value, maximumOperations: 1_000)
    else { return 0 }
    let original = document
    do {
        let patched = try patch.apply(to: document, copyBudget: copyBudget)
        let bound = document.compactJSONLength(upTo: .max)! + size + copyBudget
        precondition(patched.compactJSONLength(upTo: bound) != nil, "a patch grew the document past what it brought and may copy")
        let rewritten = try JSONReader(maximumDepth: 200).read(JSONWriter.bytes(of: patched))
        precondition(rewritten == patched, "patched JSON does not round-trip")
        _ = try? DataProviderFactory().makeDocument(from: patched, listID: "fuzz", revision: 2)
    } catch {
        precondition(document == original, "a failed patch changed its input")
    }
    return 0
}
