import Foundation
public import HTTPServer
public import Synchronization

/// A feed server on loopback (ListDelta's own HTTP server) that the fetcher under test talks to.
public final class FeedServer: Sendable {
    public let server: LoopbackServer
    /// What every request carried.
    public let log = RequestLog()
    public static let feed = Array(("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>T</title>" + String(repeating: "<item><title>x</title></item>", count: 200) + "</channel></rss>").utf8)

    public init() throws {
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
        server = try LoopbackServer(router: router) { $0.gzipMinimumSize = 256 }
    }

    /// `http://127.0.0.1:<port>`.
    public var base: String { server.base }
}

/// The requests a feed server saw.
public final class RequestLog: Sendable {
    public struct Seen: Sendable {
        public let path: String
        public let ifNoneMatch: String?
        public let acceptEncoding: String?
        public let host: String?
    }

    public let entries = Mutex<[Seen]>([])

    public func record(_ request: HTTPRequest) {
        let seen = Seen(
            path: request.path, ifNoneMatch: request.headers["If-None-Match"], acceptEncoding: request.headers["Accept-Encoding"],
            host: request.headers["Host"])
        entries.withLock { $0.append(seen) }
    }
}
