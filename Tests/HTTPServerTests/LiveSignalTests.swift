import Glibc
import HTTPServer
import ListDeltaTestSupport
import Logging
import Testing

@Suite struct LiveSignalTests {
    @Test func sigtermShutsDown() throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.eventLoops = 1
        let server = HTTPServer(configuration: configuration, router: echoRouter(), logger: .init(label: "t"))
        server.installSignalHandlers()
        try server.start()
        let client = try #require(TestClient(port: server.port))
        #expect(client.request("GET", "/items/1")?.status == 200)
        kill(getpid(), SIGTERM)
        server.waitUntilStopped()
        #expect(TestClient(port: server.port) == nil)
    }

    @Test func handlerThatNeverAnswersGets500() throws {
        var router = Router()
        router.add(.GET, "/forgot") { _, _ in }
        try withServer(router: router) { server in
            let client = try #require(TestClient(port: server.port))
            let r = try #require(client.request("GET", "/forgot"))
            #expect(r.status == 500)
            #expect(r.header("content-type") == "application/problem+json")
        }
    }
}
