/// CORS decisions (pure; the server applies the headers).
struct CORSPolicy: Sendable {
    let allowedOrigins: [String]
    let maxAgeSeconds: Int

    static let exposeHeaders = "ETag, Content-Encoding, Location"
    static let allowHeaders = "Authorization, Content-Type, Content-Encoding, If-Match, If-None-Match, Last-Event-ID"
    static let allowMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

    /// The `Access-Control-Allow-Origin` value for `origin`, or `nil` when CORS does not apply.
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, !allowedOrigins.isEmpty else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    /// Calls `add` with each header of an actual (non-preflight) response, if CORS applies.
    func forEachResponseHeader(origin: String?, _ add: (String, String) -> Void) {
        guard let allow = allowOrigin(for: origin) else { return }
        add("Access-Control-Allow-Origin", allow)
        add("Access-Control-Expose-Headers", Self.exposeHeaders)
        if allow != "*" { add("Vary", "Origin") }
    }

    /// The 204 answer to a preflight `OPTIONS` request, or `nil` when it is not one (or the origin is refused).
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .OPTIONS, request.headers["Access-Control-Request-Method"] != nil,
            let allow = allowOrigin(for: request.headers["Origin"])
        else { return nil }
        var headers = HTTPHeaders()
        headers["Access-Control-Allow-Origin"] = allow
        headers["Access-Control-Allow-Methods"] = Self.allowMethods
        headers["Access-Control-Allow-Headers"] = Self.allowHeaders
        headers["Access-Control-Max-Age"] = String(maxAgeSeconds)
        if allow != "*" { headers.add("Vary", "Origin") }
        return HTTPResponse(status: 204, headers: headers)
    }
}
