import Glibc
import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Synchronization
import Testing

/// The server's bounds on a real socket: connections per client, the head's own deadline, and a stream's output.
/// Every wait is bounded by the client's timeout or `eventually`, never by a duration the test asserts.
@Suite struct LiveBoundsTests {
    @Test func aClientPastItsConnectionsIsAnswered429AndClosedWhileOthersAreServed() throws {
        try withServer({ $0.maxConnectionsPerClient = 2 }, router: lifecycleRouter(Parked())) { server in
            let kept = try #require(TestClient(port: server.port))
            #expect(kept.request("GET", "/quick")?.status == 200)
            do {
                let second = try #require(TestClient(port: server.port))
                #expect(second.request("GET", "/quick")?.status == 200)
                let third = try #require(TestClient(port: server.port))
                let refused = try #require(third.readResponse())
                #expect(refused.status == 429)
                #expect(refused.header("retry-after") == "1")
                #expect(refused.header("content-type") == "application/problem+json")
                #expect(refused.text.contains("at most 2"))
                #expect(third.waitForEOF())
                #expect(server.refusedClientConnections == 1)
            }
            // The client's places come back as its connections close.
            #expect(eventually { server.openConnections == 1 })
            let again = try #require(TestClient(port: server.port))
            #expect(again.request("GET", "/quick")?.status == 200)
            #expect(kept.request("GET", "/quick")?.status == 200)
        }
    }

    @Test func aHeadThatTricklesIsCutAtItsDeadlineWithAProblemSayingSo() throws {
        try withServer({ $0.headerTimeoutSeconds = 1; $0.requestTimeoutSeconds = 60; $0.timeoutSeconds = 60 }, router: lifecycleRouter(Parked())) {
            server in
            let client = try #require(TestClient(port: server.port, timeoutSeconds: 10))
            #expect(client.send("GET /quick HTTP/1.1\r\nHost: x\r\nX-Slow: "))
            let answer = try #require(client.readResponse())
            #expect(answer.status == 408)
            #expect(answer.text.contains("head did not arrive within 1 s"))
            #expect(client.waitForEOF())
            // A head that arrives whole is not held to it, however long its body then takes within the request's.
            let slow = try #require(TestClient(port: server.port, timeoutSeconds: 10))
            #expect(slow.send("GET /quick HTTP/1.1\r\nHost: x\r\n\r\n"))
            #expect(slow.readResponse()?.status == 200)
        }
    }

    @Test func aStreamWhoseClientDoesNotReadIsEndedOnceItsOutputIsFull() throws {
        let parked = Parked()
        try withServer({ $0.maxOutputBytes = 256 * 1024 }, router: lifecycleRouter(parked)) { server in
            let client = try #require(TestClient(port: server.port))
            #expect(client.sendRequest("GET", "/events"))
            #expect(eventually { parked.stream.withLock { $0 } != nil })
            let stream = try #require(parked.stream.withLock { $0 })
            let event = Array("data: \(String(repeating: "x", count: 64 * 1024))\n\n".utf8)
            // The kernel's buffers take what they can; then the output grows to its bound and the stream ends.
            for _ in 0..<4_000 where server.overflowedStreams == 0 {
                guard stream.write(event) else { break }
                usleep(500)
            }
            #expect(eventually { server.overflowedStreams == 1 })
            #expect(eventually { parked.closed.load(ordering: .relaxed) == 1 })
            #expect(eventually { !stream.write(event) })
        }
    }
}
