import Glibc
import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Testing

/// What libevent would answer with its own HTML pages, the connection limit from accept, and the whole-request
/// deadline.
@Suite struct LiveDefenceTests {
    /// Sends `raw` on a fresh connection and reads one response.
    func answer(to raw: [UInt8], port: Int) throws -> TestResponse? {
        let client = try #require(TestClient(port: port))
        client.send(raw)
        return client.readResponse()
    }

    func expectProblem(_ response: TestResponse?, status: Int) {
        #expect(response?.status == status)
        #expect(response?.header("content-type") == "application/problem+json")
        #expect(response?.header("connection") == "close")
        #expect(response?.text.contains("\"status\":\(status)") == true)
        #expect(response?.text.contains("<HTML>") == false)
    }

    @Test func requestsLibeventRefusesGetProblemDetails() throws {
        try withServer({ $0.maxHeadersSize = 1024; $0.maxBodySize = 1000 }, router: lifecycleRouter(Parked())) { server in
            let port = server.port
            expectProblem(try answer(to: Array("GARBAGE\r\n\r\n".utf8), port: port), status: 400)
            expectProblem(try answer(to: Array("FOO /quick HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: port), status: 501)
            expectProblem(try answer(to: Array("QUERY /quick HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: port), status: 501)
            expectProblem(try answer(to: Array("GET /quick HTTP/1.1\r\nno colon here\r\n\r\n".utf8), port: port), status: 400)
            expectProblem(try answer(to: Array("GET /quick HTTP/7.0\r\n\r\n".utf8), port: port), status: 400)
            let bigHeader = "GET /quick HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 4000))\r\n\r\n"
            let tooLarge = try answer(to: Array(bigHeader.utf8), port: port)
            #expect([400, 413, 431].contains(tooLarge?.status ?? 0))
            #expect(tooLarge?.header("content-type") == "application/problem+json")
            // Over libevent's own body cap (twice ours plus 1 KiB): it reads the body to its end, then refuses it.
            let hugeBody = Array("POST /quick HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n".utf8) + [UInt8](repeating: 97, count: 20000)
            expectProblem(try answer(to: hugeBody, port: port), status: 413)
            // With `Expect: 100-continue` libevent writes its page without a body: the problem is whole anyway.
            let expecting = Array("POST /quick HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 20000\r\n\r\n".utf8)
            expectProblem(try answer(to: expecting + [UInt8](repeating: 97, count: 20000), port: port), status: 413)
            expectProblem(try answer(to: Array("POST /quick HTTP/1.1\r\nHost: x\r\nExpect: telepathy\r\nContent-Length: 5\r\n\r\nhello".utf8), port: port), status: 417)
            // The server is fine, and its own 404 is still a problem on a kept-alive connection.
            let client = try #require(TestClient(port: port))
            #expect(client.request("GET", "/quick")?.status == 200)
            let missing = client.request("GET", "/nowhere")
            #expect(missing?.status == 404)
            #expect(missing?.header("connection") != "close")
            #expect(client.request("GET", "/quick")?.status == 200)
        }
    }

    @Test func pipelinedRequestsAndContinueAreAnsweredInOrder() throws {
        try withServer(router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            client.send("GET /items/a HTTP/1.1\r\nHost: x\r\n\r\nGET /items/b HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.text.hasPrefix("id=a ") == true)
            #expect(client.readResponse()?.text.hasPrefix("id=b ") == true)
            // An interim 100 Continue is left as libevent wrote it.
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            let interim = client.readHead()
            #expect(interim?.status == 100)
            client.send("hello")
            let echoed = client.readResponse()
            #expect(echoed?.status == 200)
            #expect(echoed?.text == "hello")
            // A request libevent refuses on a connection that has answered before is a problem too (libevent has
            // frozen the start of that connection's output by then).
            client.send("GARBAGE\r\n\r\n")
            let refused = client.readResponse()
            expectProblem(refused, status: 400)
            #expect(client.waitForEOF())
        }
    }

    @Test func connectionsAreCountedFromAccept() throws {
        try withServer({ $0.maxConnections = 2; $0.maxConnectionsPerClient = 0 }, router: lifecycleRouter(Parked())) { server in
            // Two connections that never send a request fill the limit.
            let idle = try (0..<2).map { _ in try #require(TestClient(port: server.port)) }
            #expect(eventually { server.openConnections == 2 })
            let third = try #require(TestClient(port: server.port))
            let refused = third.request("GET", "/quick")
            #expect(refused?.status == 503)
            #expect(third.waitForEOF())
            // Beyond the hard cap (2 + 16) connections are closed as soon as they are accepted.
            let flood = try (0..<30).map { _ in try #require(TestClient(port: server.port)) }
            #expect(eventually { flood.filter { $0.isClosedByPeer() }.count >= 30 - 16 })
            #expect(eventually { server.openConnections <= 2 + 16 })
            let closedAtOnce = flood.filter { $0.isClosedByPeer() }.count
            #expect(closedAtOnce < 30)
            withExtendedLifetime((idle, flood)) {}
        }
        // Once idle connections go, their places are free again.
        try withServer({ $0.maxConnections = 2; $0.maxConnectionsPerClient = 0 }, router: lifecycleRouter(Parked())) { server in
            do {
                let idle = try (0..<2).map { _ in try #require(TestClient(port: server.port)) }
                #expect(eventually { server.openConnections == 2 })
                _ = idle
            }
            #expect(eventually { server.openConnections == 0 })
            let fresh = try #require(TestClient(port: server.port))
            #expect(fresh.request("GET", "/quick")?.status == 200)
        }
    }

    @Test func tricklingClientHitsTheRequestDeadline() throws {
        try withServer({ $0.timeoutSeconds = 5; $0.requestTimeoutSeconds = 1 }, router: lifecycleRouter(Parked())) { server in
            let client = try #require(TestClient(port: server.port, timeoutSeconds: 5))
            client.send("GET /quick HTTP/1.1\r\n")
            var answer: TestResponse?
            var linesSent = 0
            for _ in 0..<20 {
                // One header line every 200 ms keeps the idle timeout from ever firing.
                if client.isReadable(milliseconds: 200) {
                    answer = client.readResponse()
                    break
                }
                guard client.send("X-Slow: a\r\n") else { break }
                linesSent += 1
            }
            // Answered while the client was still sending (never idle for as long as the idle timeout).
            #expect(answer?.status == 408)
            #expect(answer?.header("content-type") == "application/problem+json")
            #expect(linesSent < 20, "the request was never cut off")
            #expect(client.waitForEOF())
            // A normal request right after is fine.
            let other = try #require(TestClient(port: server.port))
            #expect(other.request("GET", "/quick")?.status == 200)
        }
    }
}
