import Tracing

/// The server span of one request, named and described after OpenTelemetry's HTTP semantic conventions.
///
/// It continues the trace of the request's W3C `traceparent` (and `tracestate`), which alone are read from its
/// headers; it never records a header, a body, or an `access_token` given in the query (its value is replaced).
/// Every attribute is bounded in length.
enum RequestTracing {
    /// The longest string attribute kept (longer ones are cut).
    static let maximumAttributeLength = 256

    /// A traced request's span.
    final class Traced {
        let span: any Span

        init(_ span: any Span) { self.span = span }
    }

    /// Starts the span of a request that has just been read (named by its method until it is routed).
    static func start(
        _ tracer: any Tracer, method: String, path: String, query: Substring?, headers: HTTPHeaders, client: String?
    ) -> Traced {
        var parent = ServiceContext.topLevel
        let carrier = Carrier(traceParent: headers["traceparent"], traceState: headers["tracestate"])
        if carrier.traceParent != nil { tracer.extract(carrier, into: &parent, using: Carrier.Access()) }
        let span = tracer.startSpan(method, context: parent, ofKind: .server)
        guard span.isRecording else { return Traced(span) }
        span.attributes["http.request.method"] = method
        span.attributes["url.scheme"] = "http"
        span.attributes["url.path"] = bounded(path)
        if let query, !query.isEmpty { span.attributes["url.query"] = bounded(redacted(query)) }
        if let client { span.attributes["client.address"] = client }
        if let agent = headers["User-Agent"] { span.attributes["user_agent.original"] = bounded(agent) }
        return Traced(span)
    }

    /// Names the span after its route (`PUT /v1/lists/{id}`), as the conventions ask of a server span.
    static func routed(_ span: any Span, method: String, route: String) {
        span.operationName = "\(method) \(route)"
        if span.isRecording { span.attributes["http.route"] = route }
    }

    /// Ends the span with the status sent (5xx marks it failed, as the conventions say for a server).
    static func end(_ span: any Span, status: Int, bytesSent: Int) {
        if span.isRecording {
            span.attributes["http.response.status_code"] = status
            span.attributes["http.response.body.size"] = bytesSent
            if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        }
        span.end()
    }

    /// `query` with the value of every `access_token` parameter replaced by `REDACTED`: its name compared as the
    /// server reads it (percent-decoded, `+` a space), and any parameter whose name does not decode redacted too.
    /// - Complexity: O(*n*) in the query's length.
    static func redacted(_ query: Substring) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            let name = parameter.prefix { $0 != "=" }
            guard let decoded = PercentDecoding.decode(name, plusIsSpace: true),
                decoded.lowercased() != "access_token"
            else { return "\(name)=REDACTED" }
            return String(parameter)
        }.joined(separator: "&")
    }

    private static func bounded(_ text: String) -> String {
        text.utf8.count <= maximumAttributeLength ? text : String(decoding: text.utf8.prefix(maximumAttributeLength), as: UTF8.self)
    }

    /// The request's two trace-context fields, and nothing else: what an instrument may log of a carrier it
    /// cannot read holds no other header.
    struct Carrier: Sendable {
        var traceParent: String?
        var traceState: String?

        struct Access: Extractor {
            func extract(key: String, from carrier: Carrier) -> String? {
                switch key.lowercased() {
                case "traceparent": carrier.traceParent
                case "tracestate": carrier.traceState.map { String(decoding: $0.utf8.prefix(512), as: UTF8.self) }
                default: nil
                }
            }
        }
    }
}
