import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Synchronization
import Testing

/// Edge cases where libevent's own behaviour could leak bytes between requests or connections.
@Suite struct LiveEdgeCaseTests {
    @Test func headWithBodyEndsTheConnection() throws {
        try withServer(router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            // libevent does not read a HEAD body: these bytes must not be answered as a second request.
            let smuggled = "GET /items/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
            client.send("HEAD /items/1 HTTP/1.1\r\nHost: x\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n\(smuggled)")
            let head = try #require(client.readResponse(isHead: true))
            #expect(head.status == 200)
            #expect(head.header("connection") == "close")
            #expect(client.waitForEOF())
        }
    }

    @Test func headOfAStreamLeavesNoBytesForTheNextStream() throws {
        let parked = Parked()
        try withServer({ $0.eventLoops = 1 }, router: lifecycleRouter(parked)) { server in
            let head = try #require(TestClient(port: server.port))
            let headAnswer = try #require(head.request("HEAD", "/events"))
            #expect(headAnswer.status == 200)
            parked.stream.withLock { $0 }?.write(Array("data: not for anyone\n\n".utf8))
            parked.stream.withLock { $0 }?.finish()
            let client = try #require(TestClient(port: server.port))
            client.sendRequest("GET", "/events")
            let response = try #require(client.readHead())
            #expect(response.status == 200)
            #expect(client.readChunk() == Array("data: 1\n\n".utf8))
        }
    }

    @Test func finishingAStreamForAnHTTP10ClientClosesCleanly() throws {
        let parked = Parked()
        try withServer({ $0.eventLoops = 1 }, router: lifecycleRouter(parked)) { server in
            for _ in 0..<3 {
                let client = try #require(TestClient(port: server.port))
                client.send("GET /events HTTP/1.0\r\n\r\n")  // not chunked: the body ends when the connection does
                let response = try #require(client.readHead())
                #expect(response.status == 200)
                #expect(eventually { parked.stream.withLock { $0 } != nil })
                parked.stream.withLock { stream in
                    stream?.finish()
                    stream = nil
                }
                #expect(client.waitForEOF())
            }
            let other = try #require(TestClient(port: server.port))
            #expect(other.request("GET", "/quick")?.status == 200)
        }
    }

    @Test func anHTTP10KeepAliveStreamEndsWithItsConnection() throws {
        let parked = Parked()
        try withServer({ $0.eventLoops = 1 }, router: lifecycleRouter(parked)) { server in
            let client = try #require(TestClient(port: server.port))
            // No chunks for HTTP/1.0: without this fix evhttp sent `Content-Length: 0` and kept the connection.
            client.send("GET /events HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let head = try #require(client.readHead())
            #expect(head.status == 200)
            #expect(head.header("content-length") == nil)
            #expect(head.header("transfer-encoding") == nil)
            #expect(eventually { parked.stream.withLock { $0 } != nil })
            parked.stream.withLock { stream in
                stream?.write(Array("data: 2\n\n".utf8))
                stream?.finish()
                stream = nil
            }
            #expect(client.readToEnd() == Array("data: 1\n\ndata: 2\n\n".utf8))
        }
    }

    @Test func aCONNECTGetsItsProblemAndTheConnectionEnds() throws {
        try withServer(router: echoRouter()) { server in
            // An authority names no resource here (404); a routed path does not allow CONNECT (405 with Allow).
            for (target, status, allow) in [("example.com:443", 404, nil), ("/items/1", 405, "GET, HEAD")] {
                let client = try #require(TestClient(port: server.port))
                client.send("CONNECT \(target) HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
                let response = try #require(client.readResponse())
                #expect(response.status == status, "\(target)")
                #expect(response.header("allow") == allow)
                #expect(response.header("connection") == "close")
                #expect(client.waitForEOF())
            }
        }
    }

    @Test func oddVersionsStillGetAnHTTP11Problem() throws {
        try withServer(router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            client.send("GET /items/1 HTTP/-1.5\r\nno colon\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 400)
            #expect(response.header("content-type") == "application/problem+json")
        }
    }

    @Test func aSlowReaderIsNotCutOffByTheRequestDeadline() throws {
        var router = echoRouter()
        let huge = [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 20)
        router.add(.GET, "/huge") { _, responder in
            responder.respond(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: .bytes(huge)))
        }
        try withServer({ $0.requestTimeoutSeconds = 1; $0.timeoutSeconds = 10 }, router: router) { server in
            let client = try #require(TestClient(port: server.port, timeoutSeconds: 10))
            // The start of a next request arrives while the 32 MiB answer cannot all be sent yet.
            client.send("GET /huge HTTP/1.1\r\nHost: x\r\n\r\nGET /items/2 HTTP/1.1\r\n")
            // A request started after it and left unfinished is cut off by the request deadline: once it is, the
            // deadline has passed for the first connection too, whose reader has not read a byte yet.
            let probe = try #require(TestClient(port: server.port, timeoutSeconds: 10))
            probe.send("GET /items/3 HTTP/1.1\r\n")
            #expect(probe.readResponse()?.status == 408)
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.body.count == huge.count)
        }
    }
}
