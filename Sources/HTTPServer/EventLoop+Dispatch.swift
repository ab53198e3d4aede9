import CLibevent
import Synchronization
import TextFormats
import Tracing

extension EventLoop {
    /// The `evhttp` general callback: checks limits in a fixed order, then routes.
    func handle(_ req: OpaquePointer) {
        let start = Clock.nanoseconds()
        guard let connection = connection(for: req) else {
            evhttp_send_reply(req, 500, "Internal Server Error", nil)
            return
        }
        connection.dispatched()
        var uri = evhttp_request_get_uri(req).map { String(cString: $0) } ?? "/"
        let shape = uri.withUTF8 { RequestTargetShape($0) }
        let headers = Self.readHeaders(req)
        let command = evhttp_request_get_command(req).rawValue
        let method = Self.method(command)
        let methodName = method?.rawValue ?? "UNKNOWN"
        let pathEnd = uri.utf8.index(uri.utf8.startIndex, offsetBy: shape.pathLength)
        let rawPath = uri[..<pathEnd]
        let rawPathText = shape.pathLength == uri.utf8.count ? uri : String(rawPath)
        let known = Self.knownFields(headers)
        let context = RequestContext(
            loop: self, req: req, connection: connection, method: methodName, path: rawPathText,
            isHead: method == .HEAD, acceptsGzip: AcceptEncoding.allowsGzip(known.acceptEncoding),
            origin: known.origin, startNanos: start)
        _ = context.claim()
        if self.context.tracesRequests, let tracer = self.context.tracer, tracesRequest(rawPathText, headers) {
            let queryStart = shape.hasQuery ? uri.index(after: pathEnd) : nil
            context.traced = RequestTracing.start(
                tracer, method: methodName, path: rawPathText, query: queryStart.map { uri[$0...] }, headers: headers,
                client: connection.remoteAddress)
        }

        if connection.overLimit {
            return context.send(ProblemDetails(status: 503, detail: "Too many connections.").response())
        }
        if self.context.isShuttingDown {
            return context.send(ProblemDetails(status: 503, detail: "The server is shutting down.").response())
        }
        guard let method else {
            return context.send(ProblemDetails(status: 501, detail: "Method \(methodName) is not supported.").response())
        }
        if !method.isRoutable {
            // libevent does not read a TRACE body: close the connection, so bytes a client sent after the head can
            // never be taken for a next request (a CONNECT is closed alike; evhttp needs telling for that one).
            context.closesConnection = true
            if method == .CONNECT { connection.closeOnceAnswered(req) }
        }
        // libevent never reads a HEAD body either: one that was sent would be read as the next request, so the
        // connection ends with this answer.
        if method == .HEAD, Self.declaresBody(headers) { context.closesConnection = true }
        if let framing = Self.ambiguousFraming(headers) {
            // libevent read the body by one reading of the framing; a proxy in front may have read another, so
            // nothing after it on this connection can be trusted to be a request.
            context.closesConnection = true
            return context.send(ProblemDetails(status: 400, detail: framing).response())
        }
        let maxURILength = self.context.configuration.maxURILength
        if uri.utf8.count > maxURILength {
            return context.send(ProblemDetails(status: 414, detail: "The request target exceeds \(maxURILength) bytes.").response())
        }
        let input = evhttp_request_get_input_buffer(req)
        let bodyLength = input.map { evbuffer_get_length($0) } ?? 0
        let maxBodySize = self.context.configuration.maxBodySize
        if bodyLength > maxBodySize {
            return context.send(ProblemDetails(status: 413, detail: "The body exceeds \(maxBodySize) bytes.").response())
        }
        var query = PercentDecoding.Query()
        if shape.hasQuery {
            let rest = uri[uri.index(after: pathEnd)...]
            let queryText = rest[..<(rest.firstIndex(of: "#") ?? rest.endIndex)]
            guard let parsed = PercentDecoding.parseQuery(queryText) else {
                return context.send(ProblemDetails(status: 400, detail: "The query contains invalid percent-encoding.").response())
            }
            query = parsed
        }
        guard let path = shape.pathNeedsDecoding ? PercentDecoding.decode(rawPath) : rawPathText else {
            return context.send(
                ProblemDetails(status: 400, detail: "The path contains invalid percent-encoding or a NUL byte.").response())
        }
        var body: [UInt8] = []
        if let input, bodyLength > 0 {
            body = [UInt8](unsafeUninitializedCapacity: bodyLength) { buffer, count in
                count = Int(evbuffer_copyout(input, buffer.baseAddress, bodyLength))
            }
        }
        // A gzip body is inflated later, by whoever reads it (off the loop, after authorisation): see
        // `HTTPRequest.decodedBody()`. Only the coding is checked here.
        var coding = HTTPRequest.BodyCoding.identity
        if let encoding = known.contentEncoding?.lowercased(), !encoding.isEmpty, encoding != "identity" {
            guard encoding == "gzip" || encoding == "x-gzip" else {
                return context.send(
                    ProblemDetails(status: 415, detail: "Content-Encoding \(encoding) is not supported.").response())
            }
            coding = .gzip
        }
        var request = HTTPRequest(
            method: method, path: path, rawPath: uri, query: query.parameters, repeatedQueryNames: query.repeatedNames,
            headers: headers, body: body, bodyCoding: coding,
            inflatedBodyLimit: self.context.configuration.maxInflatedBodySize, remoteAddress: connection.remoteAddress)
        if method == .OPTIONS, let preflight = self.context.cors.preflight(request) {
            return context.send(preflight)
        }
        switch self.context.router.resolve(method: method, rawPath: rawPath) {
        case .matched(let handler, let pattern, let parameters, let index):
            context.route = pattern
            context.routeIndex = index
            request.pathParameters = parameters
            context.state.store(RequestContext.State.open.rawValue, ordering: .releasing)
            if let traced = context.traced {
                RequestTracing.routed(traced.span, method: methodName, route: pattern)
                ServiceContext.$current.withValue(traced.span.context) { handler(request, HTTPResponder(context: context)) }
            } else {
                handler(request, HTTPResponder(context: context))
            }
            if context.isPending {
                context.registerPending()
                context.watchForDisconnect()
            }
        case .methodNotAllowed(let pattern, let allow, let index):
            if let traced = context.traced { RequestTracing.routed(traced.span, method: methodName, route: pattern) }
            context.route = pattern
            context.routeIndex = index
            context.send(Router.methodNotAllowed(methodName, allow: allow))
        case .notFound:
            context.send(Router.notFound(path))
        case .badRequest(let detail):
            context.send(ProblemDetails(status: 400, detail: detail).response())
        }
    }

    /// Whether a request gets a span: not on an untraced path; with a `traceparent`, when it is followed, as its
    /// caller decided (the tracer's sampler reads it); else for the configured share of requests.
    private func tracesRequest(_ path: String, _ headers: HTTPHeaders) -> Bool {
        let configuration = self.context.configuration
        guard !configuration.untracedPaths.contains(path) else { return false }
        if configuration.traceFollowsParent, headers["traceparent"] != nil { return true }
        return configuration.traceRootRatio >= 1 || traceDraws.nextUnitInterval() < configuration.traceRootRatio
    }

    private static func readHeaders(_ req: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var node = evhttp_request_get_input_headers(req)?.pointee.tqh_first
        while let field = node {
            headers.add(String(cString: field.pointee.key), String(cString: field.pointee.value))
            node = field.pointee.next.tqe_next
        }
        return headers
    }

    /// Whether the request announces a body (`Transfer-Encoding`, or a `Content-Length` other than 0).
    static func declaresBody(_ headers: HTTPHeaders) -> Bool {
        if headers.contains("Transfer-Encoding") { return true }
        guard let length = headers["Content-Length"] else { return false }
        return length.trimmingSpaces() != "0"
    }

    /// Why the body's framing is ambiguous (RFC 9112 §6.3), or `nil`: `Content-Length` given with different values
    /// (libevent would take the first), or beside `Transfer-Encoding` (libevent would take the latter).
    static func ambiguousFraming(_ headers: HTTPHeaders) -> String? {
        var length: String?
        var hasTransferEncoding = false
        for field in headers {
            if HTTPHeaders.equalsIgnoringCase(field.name, "Transfer-Encoding") {
                hasTransferEncoding = true
            } else if HTTPHeaders.equalsIgnoringCase(field.name, "Content-Length") {
                for value in field.value.split(separator: ",") {
                    let value = String(value.trimmingSpaces())
                    if let known = length, known != value { return "The request has conflicting Content-Length values." }
                    length = value
                }
            }
        }
        if hasTransferEncoding, length != nil { return "The request has both Transfer-Encoding and Content-Length." }
        return nil
    }

    /// The header fields the server itself reads (the first of each), found in one pass.
    private static func knownFields(_ headers: HTTPHeaders) -> (acceptEncoding: String?, origin: String?, contentEncoding: String?) {
        var known: (acceptEncoding: String?, origin: String?, contentEncoding: String?) = (nil, nil, nil)
        for field in headers {
            switch field.name.utf8.count {
            case 15 where known.acceptEncoding == nil && HTTPHeaders.equalsIgnoringCase(field.name, "Accept-Encoding"):
                known.acceptEncoding = field.value
            case 6 where known.origin == nil && HTTPHeaders.equalsIgnoringCase(field.name, "Origin"):
                known.origin = field.value
            case 16 where known.contentEncoding == nil && HTTPHeaders.equalsIgnoringCase(field.name, "Content-Encoding"):
                known.contentEncoding = field.value
            default:
                break
            }
        }
        return known
    }

    private static func method(_ command: UInt32) -> HTTPMethod? {
        switch command {
        case EVHTTP_REQ_GET.rawValue: .GET
        case EVHTTP_REQ_HEAD.rawValue: .HEAD
        case EVHTTP_REQ_POST.rawValue: .POST
        case EVHTTP_REQ_PUT.rawValue: .PUT
        case EVHTTP_REQ_PATCH.rawValue: .PATCH
        case EVHTTP_REQ_DELETE.rawValue: .DELETE
        case EVHTTP_REQ_OPTIONS.rawValue: .OPTIONS
        case EVHTTP_REQ_TRACE.rawValue: .TRACE
        case EVHTTP_REQ_CONNECT.rawValue: .CONNECT
        default: nil
        }
    }
}
