import ListDeltaServer
import Foundation
import HTTPServer
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// Polls' answers as a shared cache sees them (docs/api.md, "Shared caches and CDNs"), in-process. Cursors are
/// bracketed by the clock read before and after each request, never waited for.
@Suite struct CollapsiblePollRouteTests {
    private func interval(_ test: TestService) -> Int {
        PollCursor(cursorSeconds: test.service.options.cursorSeconds).interval(at: Date().timeIntervalSince1970)
    }

    /// The `next` target's members, in order.
    private func next(_ response: HTTPResponse?) -> [(String, String)]? {
        guard let link = response?.headers["Link"], link.hasPrefix("<"), let close = link.firstIndex(of: ">"),
            link[close...] == #">; rel="next""#, let query = link[..<close].split(separator: "?").last
        else { return nil }
        return query.split(separator: "&").map { member in
            let pair = member.split(separator: "=", maxSplits: 1).map(String.init)
            return (pair[0], pair.count > 1 ? pair[1] : "")
        }
    }

    @Test func anAnswerWithChangesNamesTheNextPollAndMayBeSharedForAnInterval() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        let before = interval(test)
        let answer = try #require(test.answer(.GET, "/v1/lists/l/diff?wait=0.5&format=json-patch&from=0"))
        let after = interval(test)
        #expect(answer.status == 200)
        #expect(answer.headers["Cache-Control"] == "public, max-age=\(test.service.options.cursorSeconds)")
        #expect(answer.headers["Vary"] == "Accept-Encoding")
        #expect(answer.headers["ETag"] == #""0-1-patch""#)
        #expect(answer.headers["Link"]?.hasPrefix("</v1/lists/l/diff?") == true)
        let members = try #require(next(answer))
        #expect(members.map(\.0) == ["from", "format", "wait", "cursor"])
        #expect(members.prefix(3).map(\.1) == ["1", "json-patch", "0.5"])
        let cursor = try #require(Int(members[3].1))
        #expect((before...after).contains(cursor))
    }

    /// A 304 names the next poll too: a cache that takes a revalidation's headers keeps a current `next`.
    @Test func aNotModifiedAnswerNamesTheNextPollToo() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        let answer = try #require(test.answer(.GET, "/v1/lists/l/diff?from=0&wait=2", headers: ["If-None-Match": #""0-1""#]))
        #expect(answer.status == 304)
        #expect(next(answer)?.map(\.0) == ["from", "wait", "cursor"])
        #expect(answer.headers["Cache-Control"] == "public, max-age=\(test.service.options.cursorSeconds)")
        #expect(answer.headers["Vary"] == "Accept-Encoding")
    }

    @Test func anEmptyAnswerMovesTheCursorOn() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        // No wait: answered at once, and the next cursor is past the one asked for, even one far ahead.
        let ahead = interval(test) + 1_000
        let quick = try #require(test.answer(.GET, "/v1/lists/l/diff?from=1&cursor=\(ahead)"))
        #expect(quick.json?["from"] as? Int == 1 && quick.json?["to"] as? Int == 1)
        #expect(try #require(next(quick)).map(\.0) == ["from", "cursor"])
        #expect(next(quick)?.last?.1 == String(ahead + 1))
        // An interval that is over: answered at once despite the wait, with the current interval next.
        let before = interval(test)
        let late = try #require(test.answer(.GET, "/v1/lists/l/diff?from=1&wait=30&cursor=5"))
        let after = interval(test)
        #expect(late.status == 200 && late.json?["to"] as? Int == 1)
        let members = try #require(next(late))
        #expect(members.map(\.0) == ["from", "wait", "cursor"])
        #expect(members[0].1 == "1" && members[1].1 == "30")
        #expect((before...after).contains(Int(members[2].1) ?? -1))
    }

    @Test func aParkedPollWokenByAWriteCarriesTheCurrentInterval() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        let before = interval(test)
        let poll = test.send(.GET, "/v1/lists/l/diff?from=1&wait=30&cursor=\(before + 100)")
        #expect(poll.immediateResponse == nil)
        test.put("l", items: ["a", "b"])
        let answer = try #require(poll.response())
        let after = interval(test)
        #expect(answer.json?["to"] as? Int == 2)
        #expect(next(answer)?.first?.1 == "2")
        #expect((before...after).contains(Int(next(answer)?.last?.1 ?? "") ?? -1))
    }

    @Test(arguments: ["", "-1", "+1", "1.5", "1e3", "abc", "12345678901", "2147483648", "0x10"])
    func aMalformedCursorIsABadRequestWithAPointer(text: String) throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        let answer = try #require(test.answer(.GET, "/v1/lists/l/diff?from=1&cursor=\(text)"))
        #expect(answer.status == 400)
        #expect(answer.json?["pointer"] as? String == "/cursor")
    }

    @Test func anyDigitsUpToTheBoundAreACursor() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        for text in ["0", "007", "2147483647"] {
            #expect(test.answer(.GET, "/v1/lists/l/diff?from=0&cursor=\(text)")?.status == 200)
        }
    }

    @Test func aDiffWithToNamesNoNextAndPrivateListsAreNotShared() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        let fixed = try #require(test.answer(.GET, "/v1/lists/l/diff?from=0&to=1"))
        #expect(fixed.headers["Link"] == nil)
        #expect(fixed.headers["Cache-Control"] == "public, max-age=31536000, immutable")

        let closed = try TestService {
            $0.writeTokens = ["secret"]
            $0.readAccess = "token"
            $0.cursorSeconds = 7
        }
        let auth: HTTPHeaders = ["Authorization": "Bearer secret"]
        closed.put("l", items: ["a"], headers: auth)
        let poll = try #require(closed.answer(.GET, "/v1/lists/l/diff?from=0", headers: auth))
        #expect(poll.headers["Cache-Control"] == "private, max-age=7")
        #expect(next(poll) != nil)
        #expect(closed.answer(.GET, "/v1/lists/l", headers: auth)?.headers["Cache-Control"] == "no-cache")
    }

    /// The current document stays in shared caches for a second (a crowd that opens the page at once costs one
    /// request), and browsers revalidate it.
    @Test func theCurrentDocumentIsSharedBriefly() throws {
        let test = try TestService()
        test.put("l", items: ["a"])
        for _ in 0..<2 {  // rendered on a worker, then from memory on the loop
            #expect(test.answer(.GET, "/v1/lists/l")?.headers["Cache-Control"] == "public, max-age=0, s-maxage=1")
        }
        #expect(test.answer(.GET, "/v1/lists/l?revision=1")?.headers["Cache-Control"] == "public, max-age=0, s-maxage=1")
    }
}
