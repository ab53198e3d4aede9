import Testing
@testable import HTTPServer

/// The HTTP layer's bounds, decided without a socket: where a head ends, who a client is, ambiguous framing, what a
/// problem echoes, and `Vary: Origin`.
@Suite struct BoundsTests {
    private func scan(_ parts: [String]) -> (complete: Bool, afterPart: Int?) {
        var scanner = RequestHeadScanner()
        for (index, part) in parts.enumerated() {
            let done = Array(part.utf8).withUnsafeBytes { scanner.scan($0) }
            if done { return (true, index) }
        }
        return (false, nil)
    }

    @Test func theHeadEndsAtTheFirstEmptyLineHoweverItsBytesAreSplit() {
        let head = "GET / HTTP/1.1\r\nHost: a\r\n\r\nBODY"
        for split in 1..<head.utf8.count {
            let bytes = Array(head.utf8)
            let parts = [String(decoding: bytes[..<split], as: UTF8.self), String(decoding: bytes[split...], as: UTF8.self)]
            #expect(scan(parts).complete, "split at \(split)")
        }
        #expect(scan(["GET / HTTP/1.1\nHost: a\n\n"]).complete)
        #expect(!scan(["GET / HTTP/1.1\r\nHost: a\r\n"]).complete)
        // Empty lines before the request line do not end it, nor does a trickle of header bytes.
        #expect(!scan(["\r\n\r\n", "GET / HTTP/1.1\r\n", "X-A: 1\r\n", "X-B"]).complete)
        #expect(scan(["\r\n", "GET / HTTP/1.1\r\n", "\r\n"]).afterPart == 2)
    }

    @Test func clientsAreAddressesAndIPv6Networks() {
        let v4 = ClientKey(ipv4: 0x7F00_0002)
        #expect(v4 == ClientKey(ipv6: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 2]))
        #expect(v4 != ClientKey(ipv4: 0x7F00_0001))
        let a: [UInt8] = [0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1]
        var b = a
        b[15] = 0x99
        var c = a
        c[7] = 3
        #expect(ClientKey(ipv6: a) == ClientKey(ipv6: b))
        #expect(ClientKey(ipv6: a) != ClientKey(ipv6: c))
        #expect(ClientKey(ipv6: [UInt8](repeating: 0, count: 16)) != ClientKey(ipv4: 0))
    }

    @Test func aClientIsAdmittedUpToItsLimit() {
        let clients = ClientConnections(limit: 2)
        let one = ClientKey(ipv4: 1), two = ClientKey(ipv4: 2)
        #expect(clients.admit(one) && clients.admit(one) && !clients.admit(one))
        #expect(clients.admit(two))
        clients.release(one)
        #expect(clients.admit(one))
        clients.release(one)
        clients.release(one)
        clients.release(two)
        #expect(clients.clientCount == 0)
    }

    @Test func framingIsAmbiguousWithTwoLengthsOrALengthBesideChunking() {
        #expect(EventLoop.ambiguousFraming(["Content-Length": "5"]) == nil)
        var twice = HTTPHeaders()
        twice.add("Content-Length", "5")
        twice.add("content-length", "5")
        #expect(EventLoop.ambiguousFraming(twice) == nil)
        twice.add("Content-Length", "6")
        #expect(EventLoop.ambiguousFraming(twice)?.contains("conflicting") == true)
        #expect(EventLoop.ambiguousFraming(["Content-Length": "5, 7"])?.contains("conflicting") == true)
        #expect(EventLoop.ambiguousFraming(["Transfer-Encoding": "chunked", "Content-Length": "5"])?.contains("both") == true)
        #expect(EventLoop.ambiguousFraming(["Transfer-Encoding": "chunked"]) == nil)
    }

    @Test func problemsEchoABoundedText() {
        let long = String(repeating: "é", count: 10_000)
        let problem = ProblemDetails(status: 422, detail: long, extra: ["pointer": .string("/" + long), "current": 3])
        #expect(problem.detail.utf8.count <= ProblemDetails.maximumTextBytes && problem.detail.hasSuffix("…"))
        guard case .string(let pointer)? = problem.extra["pointer"] else { Issue.record("no pointer"); return }
        #expect(pointer.utf8.count <= ProblemDetails.maximumTextBytes && pointer.hasPrefix("/é"))
        #expect(problem.extra["current"] == .int(3))
        #expect(ProblemDetails(status: 400, detail: "short").detail == "short")
        #expect(ProblemDetails.bounded(String(repeating: "e\u{301}", count: 600)).unicodeScalars.last == "…")
    }

    @Test func answersVaryByOriginWheneverCORSIsAnAllowList() {
        func headers(_ origins: [String], origin: String?) -> [String: String] {
            var configuration = HTTPServerConfiguration()
            configuration.corsAllowedOrigins = origins
            let policy = CORSPolicy(configuration: configuration, router: Router())
            var fields: [String: String] = [:]
            policy.forEachResponseHeader(origin: origin) { fields[$0] = $1 }
            return fields
        }
        #expect(headers(["https://a.example"], origin: nil) == ["Vary": "Origin"])
        #expect(headers(["https://a.example"], origin: "https://b.example") == ["Vary": "Origin"])
        #expect(headers(["https://a.example"], origin: "https://a.example") == ["Vary": "Origin", "Access-Control-Allow-Origin": "https://a.example"])
        #expect(headers(["*"], origin: "https://b.example") == ["Access-Control-Allow-Origin": "*"])
        #expect(headers(["*"], origin: nil).isEmpty)
        #expect(headers([], origin: "https://b.example").isEmpty)
    }
}
