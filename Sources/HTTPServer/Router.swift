import Glibc

/// The function that answers a request through its responder (the server's ``HTTPResponder``, or any other
/// ``HTTPResponding``, so handlers can be called without sockets).
public typealias HTTPHandler = @Sendable (HTTPRequest, any HTTPResponding) -> Void

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
        case literal([UInt8])
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
        case matched(handler: HTTPHandler, pattern: String, parameters: [String: String], index: Int)
        case methodNotAllowed(pattern: String, allow: [String], index: Int)
        case notFound
        case badRequest(String)
    }

    private(set) var routes: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Registers `handler` for `method` and `pattern` (for example `"/v1/lists/{id}/sections/{index}/items"`).
    /// - Parameters:
    ///   - method: The method, one that ``HTTPMethod/isRoutable`` (a programming error otherwise). A `GET` route
    ///     also answers `HEAD` (without a body).
    ///   - pattern: Slash-separated literal segments and `{name}` parameters.
    ///   - handler: The handler.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
        precondition(method.isRoutable, "\(method.rawValue) requests are never routed")
        routes.append(Route(method: method, pattern: pattern, segments: Self.segments(of: pattern), handler: handler))
    }

    /// The methods the router serves, in ``HTTPMethod`` order: those of its routes, `HEAD` where `GET` is, and
    /// `OPTIONS` (answered by the server's CORS preflight when no route takes it).
    public var servedMethods: [HTTPMethod] {
        let registered = Set(routes.map(\.method))
        return HTTPMethod.allCases.filter { method in
            method == .OPTIONS || registered.contains(method) || (method == .HEAD && registered.contains(.GET))
        }
    }

    static func segments(of pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part.first == "{", part.last == "}" { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(Array(part.utf8))
        }
    }

    /// Finds the route for `method` and the still-encoded path (without query).
    ///
    /// Each segment is percent-decoded on its own, so `%2F` stays inside a parameter. Segments are compared as
    /// bytes where they sit; only parameters of the matched route become strings.
    /// - Returns: The handler and decoded parameters, 405 with the allowed methods, 404, or 400 for bad encoding.
    /// - Complexity: O(*r* · *s*), where *r* is the number of routes and *s* the number of segments.
    func resolve(method: HTTPMethod, rawPath: Substring) -> Resolution {
        var path = rawPath
        return path.withUTF8 { raw in
            let count = PathSegments.count(in: raw)
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: max(count, 1)) { storage in
                var segments = PathSegments(raw, storage: storage, count: count)
                if raw.contains(UInt8(ascii: "%")) {
                    guard segments.decode() else { return .badRequest("The path contains invalid percent-encoding or a NUL byte.") }
                }
                return resolve(method: method, segments)
            }
        }
    }

    private func resolve(method: HTTPMethod, _ path: PathSegments) -> Resolution {
        var allow: [String] = []
        var allowIndex: Int?
        var headFallback: Int?
        for index in routes.indices where routes[index].segments.count == path.count && path.matches(routes[index].segments) {
            let route = routes[index]
            if route.method == method {
                return .matched(
                    handler: route.handler, pattern: route.pattern, parameters: path.parameters(route.segments), index: index)
            }
            if method == .HEAD, route.method == .GET, headFallback == nil { headFallback = index }
            allowIndex = allowIndex ?? index
            if !allow.contains(route.method.rawValue) { allow.append(route.method.rawValue) }
            if route.method == .GET, !allow.contains("HEAD") { allow.append("HEAD") }
        }
        if let headFallback {
            let route = routes[headFallback]
            return .matched(
                handler: route.handler, pattern: route.pattern, parameters: path.parameters(route.segments), index: headFallback)
        }
        if let allowIndex { return .methodNotAllowed(pattern: routes[allowIndex].pattern, allow: allow, index: allowIndex) }
        return .notFound
    }
}

/// The non-empty `/`-separated segments of a raw path: byte ranges into it, or decoded copies once `%` escapes
/// were decoded.
private struct PathSegments {
    let raw: UnsafeBufferPointer<UInt8>
    /// The segments' byte ranges in `raw` (scratch storage owned by the caller).
    private let ranges: UnsafeMutableBufferPointer<Range<Int>>
    let count: Int
    private var decoded: [[UInt8]]?

    /// The number of non-empty segments in `raw`.
    static func count(in raw: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var previous = UInt8(ascii: "/")
        for byte in raw {
            if previous == UInt8(ascii: "/"), byte != UInt8(ascii: "/") { count += 1 }
            previous = byte
        }
        return count
    }

    /// Splits `raw` into `storage`, which holds at least `count` (from ``count(in:)``) ranges.
    init(_ raw: UnsafeBufferPointer<UInt8>, storage: UnsafeMutableBufferPointer<Range<Int>>, count: Int) {
        self.raw = raw
        self.ranges = storage
        self.count = count
        var start = 0
        var filled = 0
        for index in 0...raw.count where index == raw.count || raw[index] == UInt8(ascii: "/") {
            if index > start {
                storage.initializeElement(at: filled, to: start..<index)
                filled += 1
            }
            start = index + 1
        }
    }

    /// Percent-decodes every segment; false on a malformed escape, a NUL or invalid UTF-8.
    mutating func decode() -> Bool {
        var result: [[UInt8]] = []
        for range in ranges[0..<count] {
            guard let segment = PercentDecoding.decode(String(decoding: raw[range], as: UTF8.self)) else { return false }
            result.append(Array(segment.utf8))
        }
        decoded = result
        return true
    }

    private func withSegment<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let decoded { return decoded[index].withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: raw[ranges[index]]))
    }

    func matches(_ segments: [Router.Segment]) -> Bool {
        for index in segments.indices {
            guard case .literal(let literal) = segments[index] else { continue }
            let equal = withSegment(index) { segment in
                guard segment.count == literal.count else { return false }
                return literal.withUnsafeBufferPointer { literal in
                    guard let a = literal.baseAddress, let b = segment.baseAddress else { return literal.isEmpty }
                    return memcmp(a, b, literal.count) == 0
                }
            }
            if !equal { return false }
        }
        return true
    }

    func parameters(_ segments: [Router.Segment]) -> [String: String] {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            if case .parameter(let name) = segment { parameters[name] = withSegment(index) { String(decoding: $0, as: UTF8.self) } }
        }
        return parameters
    }
}
