import ZlibCodec

/// A fully read HTTP request as seen by a handler.
public struct HTTPRequest: Sendable {
    /// How the body was sent (`Content-Encoding`).
    public enum BodyCoding: Sendable, Equatable {
        case identity
        case gzip
    }

    /// The request method (`HEAD` requests routed to a `GET` handler keep `.HEAD` here).
    public let method: HTTPMethod
    /// The percent-decoded path, without the query.
    public let path: String
    /// The request target exactly as received (path and query, still encoded).
    public let rawPath: String
    /// Path parameters filled by the router from `{name}` segments, percent-decoded.
    public var pathParameters: [String: String]
    /// Query parameters, percent-decoded, `+` read as a space; the last value of a repeated name wins.
    public let query: [String: String]
    /// The query parameter names given more than once (usually none), for handlers that refuse them.
    public let repeatedQueryNames: [String]
    /// The request headers in received order.
    public let headers: HTTPHeaders
    /// The body as it arrived: still compressed when ``bodyCoding`` is `.gzip` (read it with ``decodedBody()``).
    public let body: [UInt8]
    /// The body's coding; the server accepts only identity and gzip (415 for any other, before the handler).
    public let bodyCoding: BodyCoding
    /// The largest inflated body ``decodedBody()`` accepts, in bytes.
    public let inflatedBodyLimit: Int
    /// The peer as `host:port`.
    public let remoteAddress: String

    /// Creates a request (the server does this; tests and apps may too).
    public init(
        method: HTTPMethod, path: String, rawPath: String, pathParameters: [String: String] = [:],
        query: [String: String] = [:], repeatedQueryNames: [String] = [], headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        bodyCoding: BodyCoding = .identity, inflatedBodyLimit: Int = 8 << 20, remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.rawPath = rawPath
        self.pathParameters = pathParameters
        self.query = query
        self.repeatedQueryNames = repeatedQueryNames
        self.headers = headers
        self.body = body
        self.bodyCoding = bodyCoding
        self.inflatedBodyLimit = inflatedBodyLimit
        self.remoteAddress = remoteAddress
    }

    /// The body with its coding removed: a gzip body is inflated here, in bounded steps, so the cost falls on
    /// the thread that reads the body (a worker, after the request was authorised), never on the event loop.
    /// - Throws: A 413 problem when the inflated body would exceed ``inflatedBodyLimit`` (no more memory is
    ///   used than that), a 400 problem for a corrupt gzip body.
    /// - Complexity: O(*m*) in the inflated size.
    /// - Parameter limit: a lower bound than ``inflatedBodyLimit`` for this body, if the handler has one; a plain
    ///   body over it is refused alike.
    public func decodedBody(limit: Int? = nil) throws(ProblemDetails) -> [UInt8] {
        let limit = min(limit ?? inflatedBodyLimit, inflatedBodyLimit)
        guard bodyCoding == .gzip else {
            guard body.count <= limit else { throw ProblemDetails(status: 413, detail: "The body exceeds \(limit) bytes.") }
            return body
        }
        do {
            return try Gzip.inflate(body, limit: limit)
        } catch .tooLarge(let limit) {
            throw ProblemDetails(status: 413, detail: "The inflated body exceeds \(limit) bytes.")
        } catch {
            throw ProblemDetails(status: 400, detail: "The gzip body is corrupt.")
        }
    }
}
