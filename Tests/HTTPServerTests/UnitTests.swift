import Testing
@testable import HTTPServer

@Suite struct AcceptEncodingTests {
    @Test(arguments: [
        ("gzip", true), ("gzip;q=0", false), ("*", true), ("*;q=0", false), ("identity", false),
        ("br, gzip;q=0.5", true), ("gzip;q=0, *", false), ("*;q=0.1, identity", true), ("", false),
        ("deflate, GZIP ; q=0.001", true),
    ])
    func parses(header: String, expected: Bool) {
        #expect(AcceptEncoding.allowsGzip(header) == expected)
    }
}

@Suite struct PercentDecodingTests {
    @Test func decodesAndRejects() {
        #expect(PercentDecoding.decode("a%20b") == "a b")
        #expect(PercentDecoding.decode("caf%C3%A9") == "café")
        #expect(PercentDecoding.decode("%zz") == nil)
        #expect(PercentDecoding.decode("%4") == nil)
        #expect(PercentDecoding.decode("a%00b") == nil)
        #expect(PercentDecoding.decode("%FF") == nil)
    }

    @Test func parsesQuery() {
        let q = PercentDecoding.parseQuery("a=1&b=x+y&a=2&c=%26&flag&a=3")
        #expect(q?.parameters == ["a": "3", "b": "x y", "c": "&", "flag": ""])
        #expect(q?.repeatedNames == ["a"])
        #expect(PercentDecoding.parseQuery("a=1&b=2")?.repeatedNames == [])
        #expect(PercentDecoding.parseQuery("a=%G1") == nil)
    }
}

@Suite struct ProblemDetailsTests {
    @Test func encodesEscaped() {
        let p = ProblemDetails(status: 409, title: "Conflict", detail: "a \"b\"\n\\", extra: ["pointer": "/a", "current": 5])
        #expect(String(decoding: p.jsonBytes, as: UTF8.self)
            == #"{"type":"about:blank","title":"Conflict","status":409,"detail":"a \"b\"\n\\","current":5,"pointer":"/a"}"#)
        #expect(p.response().headers["content-type"] == "application/problem+json")
    }
}

@Suite struct HeadersTests {
    @Test func caseInsensitiveOrdered() {
        var h: HTTPHeaders = ["Content-Type": "a"]
        h.add("X-A", "1")
        h.add("x-a", "2")
        #expect(h["CONTENT-TYPE"] == "a")
        #expect(h["x-A"] == "1")
        h["X-A"] = "3"
        #expect(h.count == 2)
        #expect(h.map(\.value) == ["a", "3"])
        h["content-type"] = nil
        #expect(h.count == 1)
    }
}

@Suite struct RouterTests {
    func router() -> Router {
        var r = Router()
        r.add(.GET, "/v1/lists/{id}") { _, _ in }
        r.add(.PUT, "/v1/lists/{id}") { _, _ in }
        r.add(.GET, "/v1/lists/{id}/sections/{index}/items") { _, _ in }
        return r
    }

    @Test func resolves() {
        guard case .matched(_, let pattern, let params, _) = router().resolve(method: .GET, rawPath: "/v1/lists/a%2Fb/sections/3/items")
        else { Issue.record("no match"); return }
        #expect(pattern == "/v1/lists/{id}/sections/{index}/items")
        #expect(params == ["id": "a/b", "index": "3"])
    }

    @Test func emptySegmentsAndRoot() {
        var r = router()
        r.add(.GET, "/") { _, _ in }
        guard case .matched(_, let pattern, let params, _) = r.resolve(method: .GET, rawPath: "//v1//lists/x%20y/") else {
            Issue.record("no match"); return
        }
        #expect(pattern == "/v1/lists/{id}")
        #expect(params == ["id": "x y"])
        guard case .matched(_, "/", _, let index) = r.resolve(method: .GET, rawPath: "/") else { Issue.record("root"); return }
        #expect(index == 3)
        guard case .notFound = r.resolve(method: .GET, rawPath: "/v1/lists/x/sections/1/items/extra") else {
            Issue.record("expected 404"); return
        }
    }

    @Test func notAllowedAndNotFoundAndHead() {
        guard case .methodNotAllowed(_, let allow, _) = router().resolve(method: .DELETE, rawPath: "/v1/lists/x") else {
            Issue.record("expected 405"); return
        }
        #expect(allow == ["GET", "HEAD", "PUT"])
        guard case .notFound = router().resolve(method: .GET, rawPath: "/v2") else { Issue.record("expected 404"); return }
        guard case .matched = router().resolve(method: .HEAD, rawPath: "/v1/lists/x") else { Issue.record("HEAD"); return }
        guard case .badRequest = router().resolve(method: .GET, rawPath: "/v1/lists/%00") else { Issue.record("400"); return }
    }
}

@Suite struct EntityTagTests {
    @Test func eachCodingHasItsOwnTag() {
        #expect(EntityTag.fieldValue(of: "7", gzipped: false) == "\"7\"")
        #expect(EntityTag.fieldValue(of: "7", gzipped: true) == "\"7-gzip\"")
        #expect(EntityTag.gzipVariant(of: "\"7\"") == "\"7-gzip\"")
        #expect(EntityTag.gzipVariant(of: "W/7") == "W/7")
    }

    @Test func conditionsNameThePlainOpaqueValueOfEitherCoding() {
        #expect(EntityTag.conditions(in: nil) == nil)
        #expect(EntityTag.conditions(in: " * ") == .any)
        #expect(EntityTag.conditions(in: "\"7\", W/\"8-gzip\" ,\"9-gzip\"") == .tags(["7", "8", "9"]))
        #expect(EntityTag.conditions(in: "7, \"\", \"x") == .tags([""]))
    }
}

@Suite struct MethodTests {
    @Test func traceAndConnectAreKnownButNeverRouted() {
        #expect(HTTPMethod.allCases.filter { !$0.isRoutable } == [.TRACE, .CONNECT])
        var router = Router()
        router.add(.GET, "/a") { _, _ in }
        router.add(.PUT, "/a") { _, _ in }
        #expect(router.servedMethods == [.GET, .HEAD, .PUT, .OPTIONS])
        guard case .methodNotAllowed(_, let allow, _) = router.resolve(method: .TRACE, rawPath: "/a") else {
            Issue.record("TRACE /a should be 405")
            return
        }
        #expect(allow == ["GET", "HEAD", "PUT"])
    }
}
