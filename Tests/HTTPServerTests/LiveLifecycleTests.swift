import Glibc
import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Logging
import Synchronization
import Testing

/// Shared state between a handler and the test.
final class Parked: Sendable {
    let responder = Mutex<(any HTTPResponding)?>(nil)
    let stream = Mutex<(any HTTPStreaming)?>(nil)
    let closed = Atomic<Int>(0)
    let lateRespond = Mutex<Bool?>(nil)
}

func lifecycleRouter(_ parked: Parked) -> Router {
    var router = Router()
    router.add(.GET, "/later") { _, responder in
        runOnThread {
            // A handler that takes its time (the work, not a wait for something).
            usleep(200_000)
            responder.respond(HTTPResponse(status: 200, body: .bytes(Array("late".utf8))))
        }
    }
    router.add(.GET, "/park") { _, responder in
        responder.onClose { parked.closed.add(1, ordering: .relaxed) }
        parked.responder.withLock { $0 = responder }
    }
    router.add(.GET, "/events") { _, responder in
        responder.onClose { parked.closed.add(1, ordering: .relaxed) }
        let stream = responder.startStream(status: 200, headers: ["Content-Type": "text/event-stream"])
        parked.stream.withLock { $0 = stream }
        stream?.write(Array("data: 1\n\n".utf8))
    }
    router.add(.GET, "/quick") { _, responder in
        responder.respond(HTTPResponse(status: 200, body: .bytes(Array("ok".utf8))))
    }
    return router
}

@Suite struct LiveLifecycleTests {
    @Test func deferredReplyFromAnotherThread() throws {
        try withServer(router: lifecycleRouter(Parked())) { server in
            let client = try #require(TestClient(port: server.port))
            let r = try #require(client.request("GET", "/later"))
            #expect(r.status == 200)
            #expect(r.text == "late")
        }
    }

    @Test func parkedClientDisconnectFiresOnClose() throws {
        let parked = Parked()
        try withServer(router: lifecycleRouter(parked)) { server in
            do {
                let client = try #require(TestClient(port: server.port))
                client.sendRequest("GET", "/park")
                #expect(eventually { parked.responder.withLock { $0 != nil } })
            }  // client closed here
            #expect(eventually { parked.closed.load(ordering: .relaxed) == 1 })
            let responder = try #require(parked.responder.withLock { $0 })
            #expect(responder.isClosed)
            #expect(responder.respond(HTTPResponse(status: 200)) == false)
            let other = try #require(TestClient(port: server.port))
            #expect(other.request("GET", "/quick")?.status == 200)
        }
    }

    @Test func streamEventByEventAndDisconnect() throws {
        let parked = Parked()
        try withServer(router: lifecycleRouter(parked)) { server in
            let client = try #require(TestClient(port: server.port))
            client.sendRequest("GET", "/events", headers: [("Accept-Encoding", "gzip")])
            let head = try #require(client.readHead())
            #expect(head.status == 200)
            #expect(head.header("transfer-encoding") == "chunked")
            #expect(head.header("content-encoding") == nil)
            #expect(client.readChunk().map { String(decoding: $0, as: UTF8.self) } == "data: 1\n\n")
            let stream = try #require(parked.stream.withLock { $0 })
            stream.write(Array("data: 2\n\n".utf8))
            #expect(client.readChunk().map { String(decoding: $0, as: UTF8.self) } == "data: 2\n\n")
            stream.finish()
            #expect(client.readChunk() == [])
            #expect(client.request("GET", "/quick")?.text == "ok")

            let second = try #require(TestClient(port: server.port))
            second.sendRequest("GET", "/events")
            _ = second.readHead()
            _ = second.readChunk()
            let secondStream = try #require(parked.stream.withLock { $0 })
            second.close()
            #expect(eventually { parked.closed.load(ordering: .relaxed) == 1 })
            #expect(eventually { secondStream.write(Array("data: x\n\n".utf8)) == false })
        }
    }

    @Test func connectionLimit() throws {
        try withServer({ $0.maxConnections = 1; $0.maxConnectionsPerClient = 0 }, router: lifecycleRouter(Parked())) { server in
            let first = try #require(TestClient(port: server.port))
            #expect(first.request("GET", "/quick")?.status == 200)
            let second = try #require(TestClient(port: server.port))
            let refused = try #require(second.request("GET", "/quick"))
            #expect(refused.status == 503)
            #expect(refused.header("connection") == "close")
            #expect(refused.header("content-type") == "application/problem+json")
            #expect(second.waitForEOF())
            #expect(first.request("GET", "/quick")?.status == 200)
        }
    }

    @Test func stalledClientIsDisconnected() throws {
        try withServer({ $0.timeoutSeconds = 1 }, router: lifecycleRouter(Parked())) { server in
            let client = try #require(TestClient(port: server.port, timeoutSeconds: 5))
            client.send("GET /quick HTTP/1.1\r\nHost: x\r\n")
            #expect(client.waitForEOF())
        }
    }

    @Test func shutdownLetsParkedRequestFinish() throws {
        let parked = Parked()
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.shutdownGraceSeconds = 5
        let server = HTTPServer(configuration: configuration, router: lifecycleRouter(parked), logger: .init(label: "t"))
        let hookCalled = Atomic<Bool>(false)
        server.onShutdown = { hookCalled.store(true, ordering: .relaxed) }
        try server.start()
        let client = try #require(TestClient(port: server.port))
        client.sendRequest("GET", "/park")
        #expect(eventually { parked.responder.withLock { $0 != nil } })
        // A generous read timeout: under a loaded test run the answer may take a while, and nil would say nothing.
        let idle = try #require(TestClient(port: server.port, timeoutSeconds: 20))
        #expect(idle.request("GET", "/quick")?.status == 200)
        server.shutdown()
        let hookRan = hookCalled.load(ordering: .relaxed)
        #expect(hookRan)
        let rejected = try #require(idle.request("GET", "/quick"))
        #expect(rejected.status == 503)
        #expect(rejected.header("connection") == "close")
        #expect(eventually { TestClient(port: server.port) == nil })
        parked.responder.withLock { $0 }?.respond(HTTPResponse(status: 200, body: .bytes(Array("done".utf8))))
        let answer = try #require(client.readResponse())
        #expect(answer.status == 200)
        #expect(answer.text == "done")
        server.waitUntilStopped()
        server.shutdown()  // idempotent
    }
}

@Suite struct LiveTimeoutTests {
    @Test func idleStreamAndParkedRequestOutliveReadTimeout() throws {
        let parked = Parked()
        try withServer({ $0.timeoutSeconds = 1 }, router: lifecycleRouter(parked)) { server in
            let client = try #require(TestClient(port: server.port))
            client.sendRequest("GET", "/events")
            #expect(client.readHead()?.status == 200)
            #expect(client.readChunk() != nil)
            let waiter = try #require(TestClient(port: server.port))
            waiter.sendRequest("GET", "/park")
            // A connection that sends nothing is closed by the read timeout: once it is, the timeout has passed for
            // the stream and the parked request as well.
            let idle = try #require(TestClient(port: server.port, timeoutSeconds: 10))
            #expect(idle.waitForEOF())
            let stream = try #require(parked.stream.withLock { $0 })
            #expect(stream.write(Array("data: late\n\n".utf8)))
            #expect(client.readChunk().map { String(decoding: $0, as: UTF8.self) } == "data: late\n\n")
            parked.responder.withLock { $0 }?.respond(HTTPResponse(status: 200, body: .bytes(Array("x".utf8))))
            #expect(waiter.readResponse()?.text == "x")
            #expect(parked.closed.load(ordering: .relaxed) == 0)
            stream.finish()
        }
    }
}
