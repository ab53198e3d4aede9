import HTTPServer
import ListDeltaTestSupport
import Testing
import ZlibCodec

@Suite struct LiveEncodingTests {
    @Test func gzipResponses() throws {
        try withServer(router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let z = try #require(client.request("GET", "/big", headers: [("Accept-Encoding", "br, gzip;q=0.8")]))
            #expect(z.header("content-encoding") == "gzip")
            #expect(z.header("vary") == "Accept-Encoding")
            #expect(try Gzip.inflate(z.body, limit: 1 << 20).count == 5000)
            let refused = try #require(client.request("GET", "/big", headers: [("Accept-Encoding", "gzip;q=0")]))
            #expect(refused.header("content-encoding") == nil)
            #expect(refused.header("vary") == "Accept-Encoding")
            #expect(refused.body.count == 5000)
            // The loop never compresses: a plain body answered on it goes out plain.
            let onLoop = try #require(client.request("GET", "/big-on-loop", headers: [("Accept-Encoding", "gzip")]))
            #expect(onLoop.header("content-encoding") == nil)
            #expect(onLoop.body.count == 5000)
            let small = try #require(client.request("GET", "/items/1", headers: [("Accept-Encoding", "gzip")]))
            #expect(small.header("content-encoding") == nil)
            let pre = try #require(client.request("GET", "/pre", headers: [("Accept-Encoding", "*")]))
            #expect(pre.text == "GZIP")
            #expect(pre.header("content-encoding") == "gzip")
            let prePlain = try #require(client.request("GET", "/pre"))
            #expect(prePlain.text == "plain")
            #expect(prePlain.header("vary") == "Accept-Encoding")
            #expect(prePlain.header("content-type") == "application/json")
            // A handler's own `Vary: Accept-Encoding` is sent once, gzip'd or not (repeated fields would be joined).
            for coding in ["gzip", "identity"] {
                let varying = try #require(client.request("GET", "/pre-varying", headers: [("Accept-Encoding", coding)]))
                #expect(varying.header("vary") == "Accept-Encoding")
                #expect(varying.fieldNames.filter { $0 == "vary" }.count == 1)
            }
        }
    }

    @Test func gzipRequestBodiesAndBomb() throws {
        try withServer({ $0.maxInflatedBodySize = 1 << 20 }, router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let payload = Array("{\"hello\":\"world\"}".utf8)
            let r = try #require(client.request("POST", "/echo", headers: [("Content-Encoding", "gzip")], body: try Gzip.compress(payload)))
            #expect(r.status == 200)
            #expect(r.body == payload)
            let bomb = try Gzip.compress([UInt8](repeating: 0, count: 50_000_000), level: 9)
            let b = try #require(client.request("POST", "/echo", headers: [("Content-Encoding", "gzip")], body: bomb))
            #expect(b.status == 413)
            #expect(b.header("content-type") == "application/problem+json")
            let u = try #require(client.request("POST", "/echo", headers: [("Content-Encoding", "br")], body: payload))
            #expect(u.status == 415)
            let again = try #require(client.request("POST", "/echo", body: payload))
            #expect(again.body == payload)
        }
    }

    @Test func oversizedBodyGets413Problem() throws {
        try withServer({ $0.maxBodySize = 1000 }, router: echoRouter()) { server in
            let client = try #require(TestClient(port: server.port))
            let r = try #require(client.request("POST", "/echo", body: [UInt8](repeating: 65, count: 1500)))
            #expect(r.status == 413)
            #expect(r.header("content-type") == "application/problem+json")
            let ok = try #require(client.request("POST", "/echo", body: [UInt8](repeating: 65, count: 900)))
            #expect(ok.status == 200)
        }
    }
}
