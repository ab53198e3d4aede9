import HTTPServer
import ListDeltaTestSupport
import Testing

/// The response head the server writes from a handler's fields (see `ResponseHead`): each field once, malformed
/// ones dropped, framing and `Date` owned by the server. Every test runs with both ways of writing the head.
@Suite struct LiveResponseHeadTests {
    static let writings = ResponseHeadWriting.allCases

    @Test func theSingleEntryHeadRunsOnlyOnACheckedLibevent() throws {
        #expect(LibeventCompatibility.headWriting(requested: .singleEntry, version: 0x0201_0c00) == .singleEntry)
        #expect(LibeventCompatibility.headWriting(requested: .singleEntry, version: 0x0201_0d00) == .plain)
        #expect(LibeventCompatibility.headWriting(requested: .singleEntry, version: 0x0202_0100) == .plain)
        #expect(LibeventCompatibility.headWriting(requested: .plain, version: 0x0201_0c00) == .plain)
        let running = LibeventCompatibility.runningVersion
        for writing in Self.writings {
            try withServer({ $0.responseHeadWriting = writing }, router: Self.router([:])) { server in
                #expect(server.responseHeadWriting == LibeventCompatibility.headWriting(requested: writing, version: running))
            }
        }
        // Debian 12's libevent is the one checked: the fast path is the one that runs here.
        if LibeventCompatibility.runningVersionString == "2.1.12-stable" {
            try withServer(router: Self.router([:])) { server in #expect(server.responseHeadWriting == .singleEntry) }
        }
    }

    static func router(_ headers: HTTPHeaders, body: String = "hello") -> Router {
        var router = Router()
        router.add(.GET, "/head") { _, responder in
            responder.respond(HTTPResponse(status: 200, headers: headers, body: .bytes(Array(body.utf8))))
        }
        return router
    }

    @Test(arguments: writings) func handlerFieldsArriveOnceAndMalformedOnesAreDropped(writing: ResponseHeadWriting) throws {
        var headers = HTTPHeaders()
        headers.add("Cache-Control", "no-store")
        headers.add("X-Split", "a\r\nSet-Cookie: injected=1")
        headers.add("X-Bad Name", "1")
        headers.add("X-Nul", "a\u{0}b")
        headers.add("", "empty name")
        headers.add("Date", "Mon, 01 Jan 2001 00:00:00 GMT")
        headers.add("Content-Length", "999")
        headers.add("X-Last", "kept")
        try withServer({ $0.responseHeadWriting = writing }, router: Self.router(headers)) { server in
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

    @Test(arguments: writings) func manyLongFieldsAllArrive(writing: ResponseHeadWriting) throws {
        var headers = HTTPHeaders()
        let value = String(repeating: "v", count: 200)
        for index in 0..<40 { headers.add("X-Field-\(index)", "\(index)-\(value)") }
        try withServer({ $0.responseHeadWriting = writing }, router: Self.router(headers)) { server in
            let response = try #require(TestClient(port: server.port)?.request("GET", "/head"))
            #expect(response.status == 200)
            for index in 0..<40 { #expect(response.header("x-field-\(index)") == "\(index)-\(value)") }
            #expect(response.text == "hello")
        }
    }

    @Test(arguments: writings) func aMalformedContentTypeLeavesTheDefault(writing: ResponseHeadWriting) throws {
        try withServer({ $0.responseHeadWriting = writing }, router: Self.router(["Content-Type": "text/plain\r\nX-Injected: 1"])) { server in
            let response = try #require(TestClient(port: server.port)?.request("GET", "/head"))
            #expect(response.header("content-type") == "application/json")
            #expect(response.header("x-injected") == nil)
        }
    }

    @Test(arguments: writings) func aHEADAnswerKeepsTheLengthItsHandlerStates(writing: ResponseHeadWriting) throws {
        var router = Router()
        router.add(.GET, "/sized") { request, responder in
            let body = Array(repeating: UInt8(ascii: "x"), count: 42)
            if request.method == .HEAD {
                responder.respond(HTTPResponse(status: 200, headers: ["Content-Length": "42"]))
            } else {
                responder.respond(HTTPResponse(status: 200, headers: ["Content-Length": "7"], body: .bytes(body)))
            }
        }
        try withServer({ $0.responseHeadWriting = writing }, router: router) { server in
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

    @Test(arguments: writings) func aStreamIsChunkedOnceWhateverItsHandlerSays(writing: ResponseHeadWriting) throws {
        var router = Router()
        router.add(.GET, "/stream") { _, responder in
            let stream = responder.startStream(
                status: 200, headers: ["Content-Type": "text/plain", "Transfer-Encoding": "chunked"])
            stream?.write(Array("x".utf8))
            stream?.finish()
        }
        try withServer({ $0.responseHeadWriting = writing }, router: router) { server in
            let client = try #require(TestClient(port: server.port))
            client.sendRequest("GET", "/stream")
            let head = try #require(client.readHead())
            #expect(head.fieldNames.filter { $0 == "transfer-encoding" }.count == 1)
            #expect(head.header("transfer-encoding") == "chunked")
            #expect(client.readChunk() == Array("x".utf8))
        }
    }

    @Test(arguments: writings) func aHandlersConnectionCloseEndsTheConnection(writing: ResponseHeadWriting) throws {
        try withServer({ $0.responseHeadWriting = writing }, router: Self.router(["Connection": "close"])) { server in
            let client = try #require(TestClient(port: server.port))
            let response = try #require(client.request("GET", "/head"))
            #expect(response.header("connection") == "close")
            #expect(client.waitForEOF())
        }
    }
}
