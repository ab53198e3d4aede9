import Foundation
import HTTPServer
import ListDeltaSources
import Logging
import Synchronization
import Testing

/// A feed server on loopback (ListDelta's own HTTP server) that the fetcher under test talks to.
final class FeedServer: Sendable {
    let server: HTTPServer
    /// What every request carried.
    let log = RequestLog()
    static let feed = Array(("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>T</title>" + String(repeating: "<item><title>x</title></item>", count: 200) + "</channel></rss>").utf8)

    init() throws {
        var router = Router()
        let log = self.log
        @Sendable func record(_ request: HTTPRequest) { log.record(request) }
        router.add(.GET, "/feed") { request, responder in
            record(request)
            if request.headers["If-None-Match"] == "\"v1\"" {
                responder.respond(HTTPResponse(status: 304, headers: ["ETag": "\"v1\""]))
            } else {
                responder.respond(HTTPResponse(status: 200, headers: ["ETag": "\"v1\"", "Content-Type": "application/rss+xml; charset=\"ISO-8859-1\""], body: .bytes(Self.feed)))
            }
        }
        router.add(.GET, "/hop/{n}") { request, responder in
            record(request)
            let n = Int(request.pathParameters["n"] ?? "0") ?? 0
            responder.respond(HTTPResponse(status: 302, headers: ["Location": n <= 0 ? "/feed" : "/hop/\(n - 1)"]))
        }
        router.add(.GET, "/to-metadata") { request, responder in
            record(request)
            responder.respond(HTTPResponse(status: 301, headers: ["Location": "http://169.254.169.254/latest/meta-data/"]))
        }
        router.add(.GET, "/to-file") { request, responder in
            responder.respond(HTTPResponse(status: 307, headers: ["Location": "file:///etc/passwd"]))
        }
        router.add(.GET, "/busy") { request, responder in
            responder.respond(HTTPResponse(status: 429, headers: ["Retry-After": "120"]))
        }
        router.add(.GET, "/broken") { request, responder in
            responder.respond(HTTPResponse(status: 500, body: .bytes(Array("oops".utf8))))
        }
        router.add(.GET, "/huge") { request, responder in
            responder.respond(HTTPResponse(status: 200, headers: ["Cache-Control": "no-transform"], body: .bytes(Array(repeating: UInt8(ascii: "a"), count: 300_000))))
        }
        router.add(.GET, "/slow") { request, responder in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 3)
                responder.respond(HTTPResponse(status: 200, body: .bytes(Self.feed)))
            }
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.gzipMinimumSize = 256
        server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: "feed-server"))
        try server.start()
    }

    var base: String { "http://127.0.0.1:\(server.port)" }

    deinit { server.shutdown() }
}

@Suite(.serialized) struct HTTPSourceFetcherTests {
    let feeds: FeedServer
    let fetcher: HTTPSourceFetcher

    init() throws {
        feeds = try FeedServer()
        fetcher = HTTPSourceFetcher(
            limits: FetchLimits(maximumBytes: 100_000, timeoutSeconds: 1.5), policy: try HostPolicy(patterns: ["127.0.0.1"]))
    }

    private func request(_ path: String, _ validators: FetchValidators = FetchValidators()) -> FetchRequest {
        FetchRequest(location: .web(URL(string: feeds.base + path)!), validators: validators)
    }

    private func failure(_ path: String) -> SourceFetchError? {
        do {
            _ = try fetcher.fetch(request(path))
            return nil
        } catch {
            return error
        }
    }

    @Test func aFeedIsFetchedGzippedThenConditionally() throws {
        let first = try fetcher.fetch(request("/feed"))
        #expect(first.status == 200)
        #expect(first.body == .content(FeedServer.feed), "inflated to the served bytes")
        #expect(first.validators.entityTag == "\"v1\"")
        #expect(first.charset == "iso-8859-1")
        let second = try fetcher.fetch(request("/feed", first.validators))
        #expect(second.status == 304)
        #expect(second.body == .notModified)
        let seen = feeds.log.entries.withLock { $0 }
        #expect(seen.first?.acceptEncoding == "gzip")
        #expect(seen.last?.ifNoneMatch == "\"v1\"")
    }

    @Test func redirectsAreFollowedUpToFive() throws {
        let response = try fetcher.fetch(request("/hop/4"))
        #expect(response.status == 200)
        #expect(response.finalURL?.path == "/feed")
        #expect(failure("/hop/5")?.kind == .redirects)
        #expect(failure("/to-file")?.kind == .redirects)
    }

    @Test func aRedirectToAForbiddenAddressIsRefusedBeforeConnecting() {
        let error = failure("/to-metadata")
        #expect(error?.kind == .refusedHost)
        #expect(error?.message.contains("169.254.169.254") == true)
    }

    @Test func theDefaultPolicyRefusesLoopback() throws {
        let strict = HTTPSourceFetcher(limits: FetchLimits(), policy: .publicOnly)
        #expect(throws: SourceFetchError.self) { try strict.fetch(request("/feed")) }
        #expect(feeds.log.entries.withLock { $0.isEmpty }, "never connected")
    }

    @Test func errorsCarryStatusAndRetryAfter() {
        let busy = failure("/busy")
        #expect(busy?.kind == .httpStatus)
        #expect(busy?.status == 429)
        #expect(busy?.retryAfter == 120)
        let broken = failure("/broken")
        #expect(broken?.status == 500)
        #expect(broken?.retryAfter == nil)
    }

    @Test func boundsAreKept() {
        #expect(failure("/huge")?.kind == .tooLarge)
        let started = Date()
        #expect(failure("/slow")?.kind == .timeout)
        #expect(Date().timeIntervalSince(started) < 2.9, "the deadline cut the wait short")
        #expect(failure("/nothing-here")?.status == 404)
    }

    @Test func plainHTTPGoesToTheCheckedAddressKeepingTheName() throws {
        let named = HTTPSourceFetcher(
            limits: FetchLimits(), policy: try HostPolicy(patterns: ["127.0.0.1"]), resolver: FixedResolver(["127.0.0.1"]))
        let url = URL(string: "http://feeds.test:\(feeds.server.port)/feed")!
        _ = try named.fetch(FetchRequest(location: .web(url)))
        #expect(feeds.log.entries.withLock { $0.last?.host } == "feeds.test:\(feeds.server.port)")
        let rebound = HTTPSourceFetcher(limits: FetchLimits(), policy: try HostPolicy(patterns: ["127.0.0.1"]), resolver: FixedResolver(["10.0.0.1"]))
        #expect(throws: SourceFetchError.self) { try rebound.fetch(FetchRequest(location: .web(url))) }
    }
}

/// Resolves every name to the given addresses.
struct FixedResolver: AddressResolving {
    let addresses: [String]
    init(_ addresses: [String]) { self.addresses = addresses }
    func resolve(_ host: String, timeoutSeconds: Double) throws(SourceFetchError) -> [IPAddress] { addresses.compactMap(IPAddress.init) }
}

/// The requests a feed server saw.
final class RequestLog: Sendable {
    struct Seen: Sendable {
        let path: String
        let ifNoneMatch: String?
        let acceptEncoding: String?
        let host: String?
    }

    let entries = Mutex<[Seen]>([])

    func record(_ request: HTTPRequest) {
        let seen = Seen(
            path: request.path, ifNoneMatch: request.headers["If-None-Match"], acceptEncoding: request.headers["Accept-Encoding"],
            host: request.headers["Host"])
        entries.withLock { $0.append(seen) }
    }
}
