import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Logging
import Synchronization
import Testing

@Suite struct LiveShutdownTests {
    /// Eight clients keep requesting (half answered at once, half 200 ms later from another thread) while the
    /// server shuts down: every request sent on a connection the server had accepted gets an answer (200, or 503
    /// with `Connection: close`), and the in-flight deferred ones finish.
    @Test func shutdownUnderLoadLosesNoAcceptedRequest() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 2
        configuration.shutdownGraceSeconds = 5
        let server = HTTPServer(configuration: configuration, router: lifecycleRouter(Parked()), logger: .init(label: "t"))
        try server.start()
        let port = server.port
        let answered = Atomic<Int>(0)
        let unavailable = Atomic<Int>(0)
        let lost = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        for client in 0..<8 {
            runOnThread {
                let path = client % 2 == 0 ? "/quick" : "/later"
                // Until the listener is gone: connect, then request until the server says Connection: close.
                while let connection = TestClient(port: port) {
                    var answers = 0
                    while connection.sendRequest("GET", path) {
                        guard let response = connection.readResponse() else {
                            // No answer on a connection that was served before: an accepted request was lost.
                            // (A fresh connection may still have sat in the listen queue when the listener closed.)
                            if answers > 0 { lost.add(1, ordering: .relaxed) }
                            break
                        }
                        answers += 1
                        answered.add(1, ordering: .relaxed)
                        if response.status == 503 { unavailable.add(1, ordering: .relaxed) }
                        if response.header("connection") == "close" { break }
                    }
                }
                finished.add(1, ordering: .relaxed)
            }
        }
        #expect(eventually(10) { answered.load(ordering: .relaxed) > 20 })
        let before = answered.load(ordering: .relaxed)
        server.shutdown()
        server.waitUntilStopped()
        #expect(eventually(10) { finished.load(ordering: .relaxed) == 8 })
        #expect(before > 20)
        #expect(lost.load(ordering: .relaxed) == 0)
        #expect(answered.load(ordering: .relaxed) >= before)
    }
}
