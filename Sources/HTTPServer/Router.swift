/// The function that answers a request through its ``HTTPResponder``.
public typealias HTTPHandler = @Sendable (HTTPRequest, HTTPResponder) -> Void

/// A method + path-pattern router with `{name}` parameters.
///
/// ```swift
/// var router = Router()
/// router.add(.GET, "/v1/lists/{id}") { request, responder in
///     responder.respond(HTTPResponse(status: 200, body: .bytes(Array(request.pathParameters["id"]!.utf8))))
/// }
/// ```
public struct Router: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: String
        let segments: [Segment]
        let handler: HTTPHandler
    }

    /// The outcome of ``resolve(method:rawPath:)``.
    enum Resolution {
        case matched(handler: HTTPHandler, pattern: String, parameters: [String: String])
        case methodNotAllowed(pattern: String, allow: [String])
        case notFound
        case badRequest(String)
    }

    private(set) var routes: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Registers `handler` for `method` and `pattern` (for example `"/v1/lists/{id}/sections/{index}/items"`).
    /// - Parameters:
    ///   - method: The method. A `GET` route also answers `HEAD` (without a body).
    ///   - pattern: Slash-separated literal segments and `{name}` parameters.
    ///   - handler: The handler.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        routes.append(Route(method: method, pattern: pattern, segments: Self.segments(of: pattern), handler: handler))
    }

    static func segments(of pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part.first == "{", part.last == "}" { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(String(part))
        }
    }

    /// Finds the route for `method` and the still-encoded path (without query).
    ///
    /// Each segment is percent-decoded on its own, so `%2F` stays inside a parameter.
    /// - Returns: The handler and decoded parameters, 405 with the allowed methods, 404, or 400 for bad encoding.
    /// - Complexity: O(*r* · *s*), where *r* is the number of routes and *s* the number of segments.
    func resolve(method: HTTPMethod, rawPath: Substring) -> Resolution {
        var decoded: [String] = []
        for raw in rawPath.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = PercentDecoding.decode(raw) else {
                return .badRequest("The path contains invalid percent-encoding or a NUL byte.")
            }
            decoded.append(segment)
        }
        var allow: [String] = []
        var allowPattern: String?
        var headFallback: Route?
        for route in routes {
            guard let parameters = Self.match(route.segments, decoded) else { continue }
            if route.method == method {
                return .matched(handler: route.handler, pattern: route.pattern, parameters: parameters)
            }
            if method == .HEAD, route.method == .GET, headFallback == nil { headFallback = route }
            allowPattern = allowPattern ?? route.pattern
            if !allow.contains(route.method.rawValue) { allow.append(route.method.rawValue) }
            if route.method == .GET, !allow.contains("HEAD") { allow.append("HEAD") }
        }
        if let headFallback, let parameters = Self.match(headFallback.segments, decoded) {
            return .matched(handler: headFallback.handler, pattern: headFallback.pattern, parameters: parameters)
        }
        if let allowPattern { return .methodNotAllowed(pattern: allowPattern, allow: allow) }
        return .notFound
    }

    private static func match(_ segments: [Segment], _ path: [String]) -> [String: String]? {
        guard segments.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal): if literal != value { return nil }
            case .parameter(let name): parameters[name] = value
            }
        }
        return parameters
    }
}
