import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Testing

@Suite struct LiveObservabilityTests {
    @Test func metricsUseRoutePatterns() throws {
        let metrics = TestMetrics.shared
        try withServer(router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            for id in 1...3 { _ = client.request("GET", "/items/obs\(id)") }
            _ = client.request("GET", "/definitely-not-here")
            let route = [("route", "/items/{id}"), ("method", "GET"), ("status", "200")]
            #expect(eventually { metrics.value("http_requests_total", route) >= 3 })
            #expect(metrics.value("http_request_duration_seconds", [("route", "/items/{id}")]) >= 3)
            #expect(eventually {
                metrics.value("http_requests_total", [("route", "unmatched"), ("method", "GET"), ("status", "404")]) >= 1
            })
        }
    }
}
