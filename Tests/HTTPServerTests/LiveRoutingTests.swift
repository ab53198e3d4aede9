import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Testing

func echoRouter() -> Router {
    var router = Router()
    router.add(.GET, "/items/{id}") { request, responder in
        let text = "id=\(request.pathParameters["id"] ?? "") q=\(request.query["q"] ?? "") path=\(request.path)"
        responder.respond(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: .bytes(Array(text.utf8))))
    }
    router.add(.POST, "/echo") { request, responder in
        // Inflated by the handler, as an app does after authorising (never by the loop before routing).
        do throws(ProblemDetails) {
            responder.respond(HTTPResponse(status: 200, body: .bytes(try request.decodedBody())))
        } catch {
            responder.respond(error.response())
        }
    }
    router.add(.GET, "/big") { _, responder in
        // Answered from another thread: the responder compresses it there.
        runOnThread { responder.respond(HTTPResponse(status: 200, body: .bytes(Array(repeating: UInt8(ascii: "a"), count: 5000)))) }
    }
    router.add(.GET, "/big-on-loop") { _, responder in
        responder.respond(HTTPResponse(status: 200, body: .bytes(Array(repeating: UInt8(ascii: "a"), count: 5000))))
    }
    router.add(.GET, "/pre") { _, responder in
        responder.respond(HTTPResponse(status: 200, body: .precompressed(plain: Array("plain".utf8), gzip: Array("GZIP".utf8))))
    }
    router.add(.GET, "/pre-varying") { _, responder in
        // A cacheable answer that says it varies by coding itself, whatever its size.
        responder.respond(HTTPResponse(
            status: 200, headers: ["Vary": "Accept-Encoding"], body: .precompressed(plain: Array("plain".utf8), gzip: Array("GZIP".utf8))))
    }
    return router
}

@Suite struct LiveRoutingTests {
    @Test func pathParametersQueryAndAccessLog() throws {
        let capture = LogCapture()
        try withServer(capture: capture, router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let r = try #require(client.request("GET", "/items/a%2Fb%20c?q=x+y%21&q=z"))
            #expect(r.status == 200)
            #expect(r.text == "id=a/b c q=z path=/items/a/b c")
            #expect(r.header("content-type") == "text/plain")
            #expect(eventually { capture.contains("GET /items/a%2Fb%20c 200") })
        }
    }

    @Test func errorsAreProblemJSONOnKeptAliveConnection() throws {
        try withServer({ $0.maxURILength = 100 }, router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let cases: [(String, String, Int)] = [
                ("GET", "/nope", 404), ("DELETE", "/echo", 405), ("GET", "/items/%zz", 400), ("GET", "/items/a%00", 400),
                ("GET", "/" + String(repeating: "x", count: 200), 414), ("GET", "/items/1?a=%g", 400),
            ]
            for (method, path, status) in cases {
                let r = try #require(client.request(method, path))
                #expect(r.status == status, "\(method) \(path)")
                #expect(r.header("content-type") == "application/problem+json")
                #expect(r.text.contains("\"status\":\(status)"))
                #expect(r.header("connection") == nil)
            }
            // libevent leaves a TRACE body unread, so the answer closes the connection: no byte after it can be
            // taken for a request.
            let tracer = try #require(TestClient(port: server.port))
            let trace = try #require(tracer.request("TRACE", "/echo"))
            #expect(trace.status == 405)
            #expect(trace.header("allow") == "POST")
            #expect(trace.header("content-type") == "application/problem+json")
            #expect(trace.header("connection") == "close")
            let unknownPath = try #require(TestClient(port: server.port)?.request("TRACE", "/nope"))
            #expect(unknownPath.status == 404)
            #expect(unknownPath.header("connection") == "close")
            let r = try #require(client.request("DELETE", "/echo"))
            #expect(r.header("allow") == "POST")
        }
    }

    @Test func headFallsBackToGetWithContentLength() throws {
        try withServer(router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let head = try #require(client.request("HEAD", "/items/7"))
            #expect(head.status == 200)
            #expect(head.header("content-length") == "21")
            #expect(head.body.isEmpty)
            let get = try #require(client.request("GET", "/items/7"))
            #expect(get.text == "id=7 q= path=/items/7")
        }
    }

    @Test func corsHeadersAndPreflight() throws {
        let fields: @Sendable (inout HTTPServerConfiguration) -> Void = {
            $0.corsExposedHeaders = ["ETag", "Location"]
            $0.corsAllowedHeaders = ["If-None-Match"]
        }
        try withServer(fields, router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let r = try #require(client.request("GET", "/items/1", headers: [("Origin", "https://a.example")]))
            #expect(r.header("access-control-allow-origin") == "*")
            #expect(r.header("access-control-expose-headers") == "ETag, Location")
            let p = try #require(client.request("OPTIONS", "/items/1", headers: [
                ("Origin", "https://a.example"), ("Access-Control-Request-Method", "PUT"),
            ]))
            #expect(p.status == 204)
            #expect(p.header("access-control-allow-origin") == "*")  // once: repeated fields would read "*, *"
            // The methods are the router's; the fields are the app's (see `withServer`'s configuration below).
            #expect(p.header("access-control-allow-methods") == "GET, HEAD, POST, OPTIONS")
            #expect(p.header("access-control-allow-headers") == "If-None-Match")
            #expect(p.header("access-control-max-age") == "600")
            let plain = try #require(client.request("GET", "/items/1"))
            #expect(plain.header("access-control-allow-origin") == nil)
        }
        try withServer({ $0.corsAllowedOrigins = ["https://ok.example"] }, router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let ok = try #require(client.request("GET", "/items/1", headers: [("Origin", "https://ok.example")]))
            #expect(ok.header("access-control-allow-origin") == "https://ok.example")
            let no = try #require(client.request("GET", "/items/1", headers: [("Origin", "https://evil.example")]))
            #expect(no.header("access-control-allow-origin") == nil)
        }
    }
}
