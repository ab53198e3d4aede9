extension Router {
    /// Routes `request` (by its method and the path of its ``HTTPRequest/rawPath``) and runs the matched handler
    /// with `responder`, or answers the 404, 405 (with `Allow`) or 400 problem the server would: a request
    /// handled without a socket, as tests and in-process callers do. The server's own loop routes the same way,
    /// adding its limits, preflights and metrics.
    /// - Complexity: O(*r* · *s*) to route, as ``resolve(method:rawPath:)``, plus the handler.
    public func dispatch(_ request: HTTPRequest, to responder: any HTTPResponding) {
        let target = request.rawPath
        let pathEnd = target.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? target.endIndex
        switch resolve(method: request.method, rawPath: target[..<pathEnd]) {
        case .matched(let handler, _, let parameters, _):
            var request = request
            request.pathParameters = parameters
            handler(request, responder)
        case .methodNotAllowed(_, let allow, _):
            responder.respond(Self.methodNotAllowed(request.method.rawValue, allow: allow))
        case .notFound:
            responder.respond(Self.notFound(request.path))
        case .badRequest(let detail):
            responder.respond(ProblemDetails(status: 400, detail: detail).response())
        }
    }

    /// The 405 problem with its `Allow` field.
    static func methodNotAllowed(_ method: String, allow: [String]) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers["Allow"] = allow.joined(separator: ", ")
        return ProblemDetails(status: 405, detail: "Method \(method) is not allowed here.").response(headers: headers)
    }

    /// The 404 problem of a path no route matches.
    static func notFound(_ path: String) -> HTTPResponse {
        ProblemDetails(status: 404, detail: "No resource at \(path).").response()
    }
}
