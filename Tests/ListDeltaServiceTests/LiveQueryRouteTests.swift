import ListDeltaServer
import Foundation
import HTTPServer
import ListDeltaApplication
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// Live queries through the routes, in-process on the SQLite store (API.md, "Live queries"): documents, diffs,
/// held polls, `fromQuery`, `next` links, event streams, the refusals and `maxQueries`. Targets carry `q` as the
/// routes receive it once decoded (the test service does not percent-decode).
@Suite struct LiveQueryRouteTests {
    /// Items `a`…`d` with a score and a read flag: unread are `a` (3), `c` (2), `d` (4).
    static let base = #"""
        {"kind":"array","sections":[{"id":"s","items":[
          {"id":"a","model":{"score":3,"read":false}},{"id":"b","model":{"score":1,"read":true}},
          {"id":"c","model":{"score":2,"read":false}},{"id":"d","model":{"score":4,"read":false}}]}]}
        """#
    static let unread = #"{"where":[{"path":"/model/read","op":"eq","value":false}]}"#
    static let unreadByScore = #"{"where":[{"path":"/model/read","op":"eq","value":false}],"sort":[{"path":"/model/score"}]}"#

    private func fixture(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws -> TestService {
        let test = try TestService(configure)
        #expect(test.answer(.PUT, "/v1/lists/l", json: Self.base)?.status == 201)
        return test
    }

    private func ids(_ json: [String: Any]?) -> [String] {
        ViewRouteTests.itemIDs(json).flatMap { $0 }
    }

    /// Sets item `index`'s `read` flag: a write that changes `unread`'s result, or not, as the test needs.
    private func setRead(_ test: TestService, _ index: Int, _ read: Bool) {
        let patch = #"[{"op":"replace","path":"/sections/0/items/\#(index)/model/read","value":\#(read)}]"#
        #expect(test.answer(.PATCH, "/v1/lists/l", json: patch)?.status == 200)
    }

    private func setScore(_ test: TestService, _ index: Int, _ score: Int) {
        let patch = #"[{"op":"replace","path":"/sections/0/items/\#(index)/model/score","value":\#(score)}]"#
        #expect(test.answer(.PATCH, "/v1/lists/l", json: patch)?.status == 200)
    }

    /// The `next` link's members, in order.
    private func next(_ response: HTTPResponse?) -> [(String, String)] {
        guard let link = response?.headers["Link"], let open = link.firstIndex(of: "?"), let close = link.firstIndex(of: ">") else { return [] }
        return link[link.index(after: open)..<close].split(separator: "&").map { member in
            let pair = member.split(separator: "=", maxSplits: 1).map(String.init)
            return (pair[0], pair.count > 1 ? pair[1] : "")
        }
    }

    @Test func theDocumentIsTheResultWithTheCanonicalQuery() throws {
        let test = try fixture()
        let spelled = #"{ "sort":[{"order":"asc","path":"/model/score"}], "where":[{"value":false,"op":"eq","path":"/model/read"}], "offset":0 }"#
        let answer = try #require(test.answer(.GET, "/v1/lists/l?q=\(spelled)"))
        #expect(answer.status == 200)
        #expect(ids(answer.json) == ["c", "a", "d"])
        #expect(answer.json?["id"] as? String == "l")
        #expect((answer.json?["revision"] as? NSNumber)?.intValue == 1)
        let body = String(decoding: answer.plainBody, as: UTF8.self)
        #expect(body.contains(#""revision":1,"query":\#(Self.unreadByScore),"#))
        let plain = try #require(test.answer(.GET, "/v1/lists/l"))
        #expect(answer.headers["ETag"] != plain.headers["ETag"])
        #expect(answer.headers["ETag"]?.hasPrefix(#""1-"#) == true)
        // An old revision's result: immutable.
        setRead(test, 0, true)
        let old = try #require(test.answer(.GET, "/v1/lists/l?revision=1&q=\(Self.unread)"))
        #expect(ids(old.json) == ["a", "c", "d"])
        #expect(old.headers["Cache-Control"]?.contains("immutable") == true)
        #expect(ids(test.answer(.GET, "/v1/lists/l?q=\(Self.unread)")?.json) == ["c", "d"])
        // `{}` is the whole list: the answers without `q`.
        let whole = try #require(test.answer(.GET, "/v1/lists/l?q={}"))
        #expect(whole.headers["ETag"] == #""2""#)
        #expect(String(decoding: whole.plainBody, as: UTF8.self).contains(#""query""#) == false)
    }

    @Test func malformedQueriesAre400WithPointersInsideQ() throws {
        let test = try fixture()
        let cases: [(String, String)] = [
            ("/v1/lists/l?q=nope", "/q"),
            ("/v1/lists/l?q=[]", "/q"),
            (#"/v1/lists/l?q={"of":"l"}"#, "/q/of"),
            (#"/v1/lists/l/diff?from=0&q={"limit":0}"#, "/q/limit"),
            (#"/v1/lists/l/diff?from=0&q={"where":[{"path":"/model/read","op":"like","value":1}]}"#, "/q/where/0/op"),
            (#"/v1/lists/l/diff?from=0&fromQuery={"offset":-1}"#, "/fromQuery/offset"),
            (#"/v1/lists/l/events?q={"sort":[{"path":"x"}]}"#, "/q/sort/0/path"),
            ("/v1/lists/l/sections?q={}", "/q"),
            ("/v1/lists/l/sections/0/items?q={}", "/q"),
            ("/v1/diffs?lists=l:0&q={}", "/q"),
            ("/v1/lists/l?fromQuery={}", "/fromQuery"),
        ]
        for (target, pointer) in cases {
            let answer = test.answer(.GET, target)
            #expect(answer?.status == 400, "\(target)")
            #expect(answer?.json?["pointer"] as? String == pointer, "\(target)")
        }
        let long = #"{"where":[{"path":"/model/x","op":"in","value":["\#(String(repeating: "x", count: 5_000))"]}]}"#
        #expect(test.answer(.GET, "/v1/lists/l?q=\(long)")?.json?["pointer"] as? String == "/q")
    }

    @Test func aDiffTurnsOneResultIntoAnotherAndNamesTheCanonicalNextPoll() throws {
        let test = try fixture()
        setRead(test, 2, true)
        let spelled = #"{"offset":0,"where":[{"op":"eq","path":"/model/read","value":false}]}"#
        let answer = try #require(test.answer(.GET, "/v1/lists/l/diff?from=1&format=json-patch&wait=0&q=\(spelled)"))
        #expect(answer.status == 200)
        #expect(answer.headers["ETag"]?.hasPrefix(#""1-2-"#) == true)
        #expect(answer.headers["ETag"]?.hasSuffix(#"-patch""#) == true)
        let members = next(answer)
        #expect(members.map(\.0) == ["from", "format", "q", "wait", "cursor"])
        #expect(members[0].1 == "2")
        #expect(members[2].1 == Self.unread.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.!~*'()"))))
        let between = try #require(test.answer(.GET, "/v1/lists/l/diff?from=1&to=2&q=\(Self.unread)"))
        #expect(between.headers["Cache-Control"]?.contains("immutable") == true)
        let items = between.json?["items"] as? [String: Any]
        #expect((items?["deleted"] as? [Any])?.count == 1)
        #expect(between.headers["Link"] == nil)
    }

    @Test func aHeldPollIsWokenOnlyByAWriteThatChangesTheResult() throws {
        let test = try fixture()
        let poll = test.send(.GET, "/v1/lists/l/diff?from=1&wait=20&q=\(Self.unread)")
        #expect(poll.immediateResponse == nil)
        setRead(test, 1, false)  // b becomes unread: changes the result
        let woken = try #require(poll.response(within: 5))
        #expect((woken.json?["to"] as? NSNumber)?.intValue == 2)
        let quiet = test.send(.GET, "/v1/lists/l/diff?from=2&wait=1.5&q=\(Self.unread)")
        setScore(test, 1, 9)  // b stays unread, its score changes: an update of the result
        let updated = try #require(quiet.response(within: 5))
        #expect((updated.json?["to"] as? NSNumber)?.intValue == 3)
        // A write outside the result wakes nothing; the hold ends with an empty diff to the newest base revision.
        setRead(test, 2, true)
        let after = test.send(.GET, "/v1/lists/l/diff?from=4&wait=1.5&q=\(Self.unread)")
        #expect(test.answer(.PATCH, "/v1/lists/l", json: #"[{"op":"add","path":"/sections/0/items/-","value":{"id":"e","model":{"read":true}}}]"#)?.status == 200)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(after.immediateResponse == nil)
        let empty = try #require(after.response(within: 5))
        #expect((empty.json?["from"] as? NSNumber)?.intValue == 4)
        #expect((empty.json?["to"] as? NSNumber)?.intValue == 5)
        #expect(((empty.json?["items"] as? [String: Any])?["inserted"] as? [Any])?.isEmpty == true)
        #expect(next(empty).first?.1 == "5")
    }

    @Test func aPollFromAnUnchangedResultAnsweredAtOnceMovesToTheBaseRevision() throws {
        let test = try fixture()
        setScore(test, 1, 7)  // b is read: outside the result
        let answer = try #require(test.answer(.GET, "/v1/lists/l/diff?from=1&wait=0&q=\(Self.unread)"))
        #expect((answer.json?["to"] as? NSNumber)?.intValue == 2)
        #expect(answer.headers["ETag"]?.hasPrefix(#""1-2-"#) == true)
    }

    @Test func changingTheQueryIsADiff() throws {
        let test = try fixture()
        let grown = try #require(test.answer(.GET, #"/v1/lists/l/diff?from=1&fromQuery={"limit":2}&q={"limit":3}"#))
        #expect(grown.status == 200)
        let inserted = (grown.json?["items"] as? [String: Any])?["inserted"] as? [[String: Any]]
        #expect(inserted?.count == 1)
        #expect((inserted?.first?["item"] as? [String: Any])?["id"] as? String == "c")
        // The next poll follows the new query, without fromQuery.
        #expect(next(grown).map(\.0) == ["from", "q", "cursor"])
        // fromQuery without q: back to the whole list.
        let back = try #require(test.answer(.GET, #"/v1/lists/l/diff?from=1&fromQuery={"limit":2}"#))
        #expect(((back.json?["items"] as? [String: Any])?["inserted"] as? [Any])?.count == 2)
        #expect(next(back).map(\.0) == ["from", "cursor"])
    }

    @Test func aStreamSendsOnlyTheRevisionsThatChangeTheResult() throws {
        let test = try fixture()
        let stream = try #require(test.send(.GET, "/v1/lists/l/events?from=1&q=\(Self.unread)").stream(within: 5))
        setScore(test, 1, 7)  // revision 2: b is read, the result does not change
        setRead(test, 0, true)  // revision 3: a leaves
        let deadline = Date().addingTimeInterval(5)
        while !stream.text.contains("id: 3"), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(stream.text.contains("event: diff\nid: 3\n"))
        #expect(!stream.text.contains("id: 2\n"))
        // From 1, or from 2 when the stream was opened after revision 2 (whose empty change it does not send).
        #expect(stream.text.contains(#""from":1,"to":3"#) || stream.text.contains(#""from":2,"to":3"#))
    }

    @Test func holdingMoreThanMaxQueriesIs503() throws {
        let test = try fixture { $0.maxQueries = 1 }
        let first = test.send(.GET, "/v1/lists/l/diff?from=1&wait=5&q=\(Self.unread)")
        let same = test.send(.GET, "/v1/lists/l/diff?from=1&wait=5&q=\(Self.unread)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(first.immediateResponse == nil && same.immediateResponse == nil)
        let other = try #require(test.answer(.GET, #"/v1/lists/l/diff?from=1&wait=5&q={"limit":1}"#))
        #expect(other.status == 503)
        #expect(other.headers["Retry-After"] != nil)
        // A query answered at once holds nothing.
        #expect(test.answer(.GET, #"/v1/lists/l/diff?from=0&q={"limit":1}"#)?.status == 200)
        setRead(test, 0, true)
        #expect(first.response(within: 5)?.status == 200 && same.response(within: 5)?.status == 200)
        #expect(test.service.app.queries.counts.held == 0)
    }
}
