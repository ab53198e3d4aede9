/// CORS decisions (pure; the server applies the headers). The lists come from the app's
/// ``HTTPServerConfiguration`` and the methods from its ``Router``.
struct CORSPolicy: Sendable {
    let allowedOrigins: [String]
    let maxAgeSeconds: Int
    /// `Access-Control-Expose-Headers` of actual responses (empty: the field is not sent).
    let exposeHeaders: String
    /// `Access-Control-Allow-Headers` of preflight answers (empty: the field is not sent).
    let allowHeaders: String
    /// `Access-Control-Allow-Methods` of preflight answers: the methods the router serves.
    let allowMethods: String

    init(configuration: HTTPServerConfiguration, router: Router) {
        allowedOrigins = configuration.corsAllowedOrigins
        maxAgeSeconds = configuration.corsMaxAgeSeconds
        exposeHeaders = configuration.corsExposedHeaders.joined(separator: ", ")
        allowHeaders = configuration.corsAllowedHeaders.joined(separator: ", ")
        allowMethods = router.servedMethods.map(\.rawValue).joined(separator: ", ")
    }

    /// The `Access-Control-Allow-Origin` value for `origin`, or `nil` when CORS does not apply.
    func allowOrigin(for origin: String?) -> String? {
        guard let origin, !allowedOrigins.isEmpty else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    /// Whether answers differ by the request's `Origin`: with an allow-list (not `*`, not off), so every answer
    /// says `Vary: Origin`, with or without an `Origin`, and no shared cache hands one origin's copy to another.
    var variesByOrigin: Bool { !allowedOrigins.isEmpty && !allowedOrigins.contains("*") }

    /// Calls `add` with each CORS header of an actual (non-preflight) response.
    func forEachResponseHeader(origin: String?, _ add: (String, String) -> Void) {
        if variesByOrigin { add("Vary", "Origin") }
        guard let allow = allowOrigin(for: origin) else { return }
        add("Access-Control-Allow-Origin", allow)
        if !exposeHeaders.isEmpty { add("Access-Control-Expose-Headers", exposeHeaders) }
    }

    /// The 204 answer to a preflight `OPTIONS` request, or `nil` when it is not one (or the origin is refused).
    func preflight(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == .OPTIONS, request.headers["Access-Control-Request-Method"] != nil,
            let allow = allowOrigin(for: request.headers["Origin"])
        else { return nil }
        var headers = HTTPHeaders()
        headers["Access-Control-Allow-Origin"] = allow
        headers["Access-Control-Allow-Methods"] = allowMethods
        if !allowHeaders.isEmpty { headers["Access-Control-Allow-Headers"] = allowHeaders }
        headers["Access-Control-Max-Age"] = String(maxAgeSeconds)
        if allow != "*" { headers.add("Vary", "Origin") }
        return HTTPResponse(status: 204, headers: headers)
    }
}
