import HTTPServer
import Testing

/// The response head the server writes from a handler's fields (see `ResponseHead`): each field once, malformed
/// ones dropped, framing and `Date` owned by the server.
@Suite struct LiveResponseHeadTests {
    static func router(_ headers: HTTPHeaders, body: String = "hello") -> Router {
        var router = Router()
        router.add(.GET, "/head") { _, responder in
            responder.respond(HTTPResponse(status: 200, headers: headers, body: .bytes(Array(body.utf8))))
        }
        return router
    }

    @Test func handlerFieldsArriveOnceAndMalformedOnesAreDropped() throws {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        headers.add("X-Split", "a\r\nSet-Cookie: injected=1")
        headers.add("X-Bad Name", "1")
        headers.add("X-Nul", "a\u{0}b")
        headers.add("", "empty name")
        headers.add("Date", "Mon, 01 Jan 2001 00:00:00 GMT")
        headers.add("Content-Length", "999")
        headers.add("X-Last", "kept")
        try withServer(router: Self.router(headers)) { server in
            let client = try #require(TestClient(port: server.port))
            let response = try #require(client.request("GET", "/head"))
            #expect(response.status == 200)
            #expect(response.text == "hello")
            #expect(response.header("cache-control") == "no-store")
            #expect(response.header("x-last") == "kept")
            #expect(response.header("content-type") == "application/json")
            for name in ["set-cookie", "x-split", "x-bad name", "x-nul"] { #expect(response.header(name) == nil) }
            #expect(response.fieldNames.filter { $0 == "date" }.count == 1)
            #expect(response.header("date") != "Mon, 01 Jan 2001 00:00:00 GMT")
            #expect(response.fieldNames.filter { $0 == "content-length" }.count == 1)
            #expect(response.header("content-length") == "5")
            // The framing held: the connection serves the next request.
            #expect(client.request("GET", "/head")?.text == "hello")
        }
    }

    @Test func manyLongFieldsAllArrive() throws {
        var headers = HTTPHeaders()
        let value = String(repeating: "v", count: 200)
        for index in 0..<40 { headers.add("X-Field-\(index)", "\(index)-\(value)") }
        try withServer(router: Self.router(headers)) { server in
            let response = try #require(TestClient(port: server.port)?.request("GET", "/head"))
            #expect(response.status == 200)
            for index in 0..<40 { #expect(response.header("x-field-\(index)") == "\(index)-\(value)") }
            #expect(response.text == "hello")
        }
    }

    @Test func aHandlersConnectionCloseEndsTheConnection() throws {
        try withServer(router: Self.router(["Connection": "close"])) { server in
            let client = try #require(TestClient(port: server.port))
            let response = try #require(client.request("GET", "/head"))
            #expect(response.header("connection") == "close")
            #expect(client.waitForEOF())
        }
    }
}
