import ListDeltaServer
import Foundation
import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// Views through the routes, in-process on the SQLite store: attaching, following the base, the refusals, and
/// what a view's history and definition show.
@Suite struct ViewRouteTests {
    /// A base of four items in two sections: `a`, `b` in `s1` ("One") and `c`, `d` in `s2` ("Two").
    static let base = #"""
        {"kind":"sections","sections":[
          {"id":"s1","title":"One","indexTitle":"O","items":[
            {"id":"a","model":{"score":3,"cat":"x","unread":true}},{"id":"b","model":{"score":1,"cat":"y","unread":false}}]},
          {"id":"s2","title":"Two","indexTitle":"T","items":[
            {"id":"c","model":{"score":2,"cat":"x","unread":true}},{"id":"d","model":{"score":4,"cat":"y","unread":true}}]}]}
        """#

    static func itemIDs(_ document: [String: Any]?) -> [[String]] {
        ((document?["sections"] as? [[String: Any]]) ?? []).map { section in
            ((section["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }
    }

    static func sectionIDs(_ document: [String: Any]?) -> [String] {
        ((document?["sections"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
    }

    static func basedOn(_ test: TestService, _ view: String) -> Int? {
        (test.answer(.GET, "/v1/lists/\(view)/view")?.json?["basedOn"] as? NSNumber)?.intValue
    }

    @Test func attachServesTheDefinitionWithDefaultsAndComputesTheView() throws {
        let test = try TestService()
        #expect(test.answer(.PUT, "/v1/lists/base", json: Self.base)?.status == 201)
        let attached = try #require(test.answer(
            .PUT, "/v1/lists/unread/view",
            json: #"{"of":"base","where":[{"path":"/model/unread","op":"eq","value":true}],"sort":[{"path":"/model/score","order":"desc"}],"limit":2}"#))
        #expect(attached.status == 201)
        let served = try #require(attached.json)
        #expect(served["of"] as? String == "base")
        #expect(served["sections"] as? String == "keep")
        #expect((served["limit"] as? NSNumber)?.intValue == 2)
        #expect((served["basedOn"] as? NSNumber)?.intValue == 1)
        #expect(Set(served.keys) == ["of", "where", "sort", "offset", "limit", "sections", "basedOn"])
        let document = test.answer(.GET, "/v1/lists/unread")?.json
        // Sorted d (4), a (3), then c (2) cut by the limit; kept in their base sections, in base order.
        #expect(Self.sectionIDs(document) == ["s1", "s2"])
        #expect(Self.itemIDs(document) == [["a"], ["d"]])
        #expect(document?["kind"] as? String == "sections")
        let again = try #require(test.answer(.PUT, "/v1/lists/unread/view", json: #"{"of":"base","sections":"none"}"#))
        #expect(again.status == 200)
        let whole = test.answer(.GET, "/v1/lists/unread")?.json
        #expect(whole?["kind"] as? String == "array")
        #expect(Self.itemIDs(whole) == [["a", "b", "c", "d"]])
        let history = test.answer(.GET, "/v1/lists/unread/revisions")?.json?["revisions"] as? [[String: Any]]
        let by = history?.first?["by"] as? [String: Any]
        #expect(by?["op"] as? String == "view")
        #expect(by?["of"] as? String == "base")
        #expect((by?["revision"] as? NSNumber)?.intValue == 1)
    }

    /// (The contract's "within a second" is the end-to-end suite's to time: unit tests assert no durations.)
    @Test func aViewFollowsItsBaseAndSkipsRevisionsThatDoNotChangeIt() throws {
        let test = try TestService()
        test.answer(.PUT, "/v1/lists/base", json: Self.base)
        test.answer(.PUT, "/v1/lists/xs/view", json: #"{"of":"base","where":[{"path":"/model/cat","op":"eq","value":"x"}],"sections":"none"}"#)
        let viewRevision = (test.answer(.GET, "/v1/lists/xs")?.json?["revision"] as? NSNumber)?.intValue
        let added = #"[{"op":"add","path":"/sections/1/items/-","value":{"id":"e","model":{"cat":"x"}}}]"#
        #expect(test.answer(.PATCH, "/v1/lists/base", json: added)?.status == 200)
        #expect(eventually { Self.basedOn(test, "xs") == 2 })
        #expect(Self.itemIDs(test.answer(.GET, "/v1/lists/xs")?.json) == [["a", "c", "e"]])
        // A base revision outside the view's filter: basedOn moves on, the view makes no revision.
        let unrelated = #"[{"op":"replace","path":"/sections/0/items/1/model/score","value":9}]"#
        #expect(test.answer(.PATCH, "/v1/lists/base", json: unrelated)?.status == 200)
        #expect(eventually { Self.basedOn(test, "xs") == 3 })
        #expect((test.answer(.GET, "/v1/lists/xs")?.json?["revision"] as? NSNumber)?.intValue == viewRevision.map { $0 + 1 })
    }

    @Test func aDeletedBaseEmptiesTheViewAndARecreatedOneRefillsIt() throws {
        let test = try TestService()
        test.answer(.PUT, "/v1/lists/base", json: Self.base)
        test.answer(.PUT, "/v1/lists/all/view", json: #"{"of":"base","sections":"none"}"#)
        #expect(test.answer(.DELETE, "/v1/lists/base")?.status == 204)
        #expect(eventually(1) { Self.itemIDs(test.answer(.GET, "/v1/lists/all")?.json) == [[]] })
        #expect(Self.basedOn(test, "all") == 0)
        let by = (test.answer(.GET, "/v1/lists/all/revisions")?.json?["revisions"] as? [[String: Any]])?.first?["by"] as? [String: Any]
        #expect((by?["revision"] as? NSNumber)?.intValue == 0)
        #expect(test.answer(.PUT, "/v1/lists/base", json: Self.base)?.status == 201)
        #expect(eventually(1) { Self.itemIDs(test.answer(.GET, "/v1/lists/all")?.json) == [["a", "b", "c", "d"]] })
        // The recreated base continues after its tombstone (revision 2).
        #expect(Self.basedOn(test, "all") == 2)
    }

    @Test func directWritesOfAViewAreRefusedNamingItsBase() throws {
        let test = try TestService()
        test.answer(.PUT, "/v1/lists/base", json: Self.base)
        test.answer(.PUT, "/v1/lists/v/view", json: #"{"of":"base"}"#)
        for (method, target, body) in [
            (HTTPMethod.PUT, "/v1/lists/v", #"{"kind":"array","items":[]}"#), (.PATCH, "/v1/lists/v", #"[{"op":"remove","path":"/sections/0"}]"#),
            (.POST, "/v1/lists/v/revert", #"{"to":1}"#),
        ] {
            let refused = try #require(test.answer(method, target, json: body))
            #expect(refused.status == 409, "\(method) \(target)")
            #expect((refused.json?["detail"] as? String)?.contains("\"base\"") == true)
        }
        let source = try #require(test.answer(.PUT, "/v1/lists/v/source", json: #"{"url":"https://example.com/feed"}"#))
        #expect(source.status == 409)
        // A view of a view, and a base made a view, are refused.
        #expect(test.answer(.PUT, "/v1/lists/w/view", json: #"{"of":"v"}"#)?.json?["pointer"] as? String == "/of")
        #expect(test.answer(.PUT, "/v1/lists/base/view", json: #"{"of":"other"}"#)?.status == 409)
        // Detached, the list is written directly again and keeps its content.
        #expect(test.answer(.DELETE, "/v1/lists/v/view")?.status == 204)
        #expect(test.answer(.GET, "/v1/lists/v/view")?.status == 404)
        #expect(test.answer(.DELETE, "/v1/lists/v/view")?.status == 404)
        #expect(Self.itemIDs(test.answer(.GET, "/v1/lists/v")?.json) == [["a", "b"], ["c", "d"]])
        #expect(test.answer(.PUT, "/v1/lists/v", json: #"{"kind":"array","items":[]}"#)?.status == 200)
    }

    @Test func badDefinitionsAnswer422WithPointersAndChangeNothing() throws {
        let test = try TestService()
        for (body, pointer) in [
            (#"{"of":"base","where":[{"path":"/model/x","op":"near","value":1}]}"#, "/where/0/op"),
            (#"{"of":"base","sort":[{"path":"/model/x"},{"path":"nope"}]}"#, "/sort/1/path"),
            (#"{"of":"base","limit":-1}"#, "/limit"), (#"{"of":"bad id"}"#, "/of"), (#"{"of":"v"}"#, "/of"),
        ] {
            let refused = try #require(test.answer(.PUT, "/v1/lists/v/view", json: body))
            #expect(refused.status == 422, "\(body)")
            #expect(refused.json?["pointer"] as? String == pointer, "\(body)")
        }
        #expect(test.answer(.GET, "/v1/lists/v/view")?.status == 404)
        #expect(test.answer(.GET, "/v1/lists/v")?.status == 404)
    }

    @Test func maxViewsBoundsTheirNumber() throws {
        let test = try TestService { $0.maxViews = 2 }
        #expect(test.answer(.PUT, "/v1/lists/v1/view", json: #"{"of":"base"}"#)?.status == 201)
        #expect(test.answer(.PUT, "/v1/lists/v2/view", json: #"{"of":"base"}"#)?.status == 201)
        #expect(test.answer(.PUT, "/v1/lists/v3/view", json: #"{"of":"base"}"#)?.status == 409)
        // Changing one of them is no new view.
        #expect(test.answer(.PUT, "/v1/lists/v2/view", json: #"{"of":"base","limit":1}"#)?.status == 200)
        // A view of a missing base holds no sections, at basedOn 0.
        #expect(Self.sectionIDs(test.answer(.GET, "/v1/lists/v1")?.json) == [])
        #expect(Self.basedOn(test, "v1") == 0)
    }

    @Test func aDeletedViewListTakesItsDefinitionWithIt() throws {
        let test = try TestService()
        test.answer(.PUT, "/v1/lists/base", json: Self.base)
        test.answer(.PUT, "/v1/lists/v/view", json: #"{"of":"base"}"#)
        #expect(test.answer(.DELETE, "/v1/lists/v")?.status == 204)
        #expect(test.answer(.GET, "/v1/lists/v/view")?.status == 404)
        test.answer(.PATCH, "/v1/lists/base", json: #"[{"op":"remove","path":"/sections/0/items/0"}]"#)
        #expect(!eventually(0.5) { test.answer(.GET, "/v1/lists/v")?.status == 200 })
    }
}
