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

    @Test func aMalformedContentTypeLeavesTheDefault() throws {
        try withServer(router: Self.router(["Content-Type": "text/plain\r\nX-Injected: 1"])) { server in
            let response = try #require(TestClient(port: server.port)?.request("GET", "/head"))
            #expect(response.header("content-type") == "application/json")
            #expect(response.header("x-injected") == nil)
        }
    }

    @Test func aHEADAnswerKeepsTheLengthItsHandlerStates() throws {
        var router = Router()
        router.add(.GET, "/sized") { request, responder in
            let body = Array(repeating: UInt8(ascii: "x"), count: 42)
            if request.method == .HEAD {
                responder.respond(HTTPResponse(status: 200, headers: ["Content-Length": "42"]))
            } else {
                responder.respond(HTTPResponse(status: 200, headers: ["Content-Length": "7"], body: .bytes(body)))
            }
        }
        try withServer(router: router) { server in
            let client = try #require(TestClient(port: server.port))
            client.sendRequest("HEAD", "/sized")
            let head = try #require(client.readResponse(isHead: true))
            #expect(head.header("content-length") == "42")
            // On a GET the server frames the body itself: the handler's wrong length is not sent.
            let get = try #require(client.request("GET", "/sized"))
            #expect(get.fieldNames.filter { $0 == "content-length" }.count == 1)
            #expect(get.header("content-length") == "42")
            #expect(get.body.count == 42)
        }
    }

    @Test func aStreamIsChunkedOnceWhateverItsHandlerSays() throws {
        var router = Router()
        router.add(.GET, "/stream") { _, responder in
            let stream = responder.startStream(
                status: 200, headers: ["Content-Type": "text/plain", "Transfer-Encoding": "chunked"])
            stream?.write(Array("x".utf8))
            stream?.finish()
        }
        try withServer(router: router) { server in
            let client = try #require(TestClient(port: server.port))
            client.sendRequest("GET", "/stream")
            let head = try #require(client.readHead())
            #expect(head.fieldNames.filter { $0 == "transfer-encoding" }.count == 1)
            #expect(head.header("transfer-encoding") == "chunked")
            #expect(client.readChunk() == Array("x".utf8))
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
