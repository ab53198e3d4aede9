import ListDeltaApplication
import Foundation
import HTTPServer
import ListDeltaCore
import ListDeltaTestSupport
import ListDeltaStorage
import Testing
import ZlibCodec
@testable import ListDeltaEngine
@testable import ListDeltaService

/// A write's diff is rendered and compressed once: the stored delta, the cache, the watchers and the response
/// all carry those bytes.
@Suite struct RenderOnceTests {
    private func document(_ ids: [String], revision: Int) throws -> ListDocument {
        let items = ids.map { #"{"id":"\#($0)","model":{"text":"\#(String(repeating: $0, count: 40))"}}"# }.joined(separator: ",")
        let body = try JSONReader().read(#"{"kind":"array","title":"T","cells":{"Text":"TextCell"},"items":[\#(items)]}"#)
        return try DataProviderFactory(limits: DocumentLimits()).makeDocument(from: body, listID: "l", revision: revision)
    }

    @Test func theStoredDeltaCarriesTheServedBytes() throws {
        let old = try document((0..<200).map { "i\($0)" }, revision: 1)
        var new = try document((0..<200).map { "i\(($0 * 7) % 200)" } + ["extra"], revision: 2)
        new.revision = 2
        let rendered = RenderedBody(ListDiff(from: old, to: new).jsonValue)
        let gzip = try #require(rendered.gzip)
        let delta = RevisionCodec.delta(rendered, to: new)
        #expect(Array(delta.suffix(gzip.count)) == gzip)
        #expect(try replay(delta, on: old) == new)
    }

    /// Deltas written before the framing (one gzip'd {"kind","cells","diff"}) still replay.
    @Test func deltasOfTheEarlierFormatStillReplay() throws {
        let old = try document(["a", "b"], revision: 1)
        var new = try document(["b", "c"], revision: 2)
        new.revision = 2
        var object = JSONObject()
        object["kind"] = .string(new.kind.rawValue)
        object["cells"] = new.cellsJSON ?? .null
        object["diff"] = ListDiff(from: old, to: new).jsonValue
        let earlier = try Gzip.compress(JSONWriter.bytes(of: .object(object)))
        #expect(try replay(earlier, on: old) == new)
    }

    @Test func theWriteResponseEmbedsTheSameCompressedDiff() throws {
        let test = try TestService()
        test.put("big", items: (0..<300).map { "item-\($0)" })
        let changed = (0..<300).reversed().map { "item-\($0)" } + ["new-one"]
        let body = #"{"kind":"array","title":"T","items":["# + changed.map { #"{"id":"\#($0)","model":{"n":"\#($0)"}}"# }.joined(separator: ",") + "]}"
        let response = try #require(test.answer(.PUT, "/v1/lists/big", json: body))
        #expect(response.status == 200)
        guard case .precompressed(let plain, let gzip) = response.body else {
            Issue.record("a large write response is precompressed")
            return
        }
        #expect(try Gzip.inflate(gzip, limit: 1 << 24) == plain)
        let diff = try #require(response.json?["diff"] as? [String: Any])
        #expect(diff["to"] as? Int == 2)
        let cached = try #require(test.app.bodies.cachedDiff(DiffKey(list: "big", from: 1, to: 2, format: .batch)))
        let cachedGzip = try #require(cached.gzip)
        // The response's gzip holds the cached diff's compressed bytes as they are (spliced, not recompressed).
        #expect(gzip.count > cachedGzip.count - 20)
        #expect(Data(gzip).range(of: Data(cachedGzip.dropFirst(10).dropLast(10))) != nil)
    }
}

/// A stored delta replayed on `document` as the repository replays it.
private func replay(_ delta: [UInt8], on document: ListDocument) throws -> ListDocument {
    var replayer = DiffReplayer(document)
    try RevisionCodec.replay(delta, on: &replayer, inflater: GzipInflater())
    return replayer.document
}
