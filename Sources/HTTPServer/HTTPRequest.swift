/// A fully read HTTP request as seen by a handler.
public struct HTTPRequest: Sendable {
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
    /// The request headers in received order.
    public let headers: HTTPHeaders
    /// The body; already inflated when it was sent with `Content-Encoding: gzip` (bounded).
    public let body: [UInt8]
    /// The peer as `host:port`.
    public let remoteAddress: String

    /// Creates a request (the server does this; tests and apps may too).
    public init(
        method: HTTPMethod, path: String, rawPath: String, pathParameters: [String: String] = [:],
        query: [String: String] = [:], headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.rawPath = rawPath
        self.pathParameters = pathParameters
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}
