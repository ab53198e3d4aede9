import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Tracing
import ZlibCodec

/// Fetches web sources with async-http-client: conditional GET, gzip, redirects followed here (at most
/// `maximumRedirects`, each target checked by the host policy), one deadline for the whole fetch (name lookups
/// included), a cap on the body.
///
/// Every host is resolved and checked before connecting, and the connection goes to the checked address itself
/// (async-http-client's DNS override, which keeps the name for `Host`, SNI and the certificate check): a name that
/// resolves differently a moment later (DNS rebinding) cannot send it elsewhere, over http or https.
public struct HTTPSourceFetcher: SourceFetching {
    public let limits: FetchLimits
    public let policy: HostPolicy
    let resolver: any AddressResolving
    let configuration: HTTPClient.Configuration
    let userAgent: String

    public init(limits: FetchLimits, policy: HostPolicy, resolver: any AddressResolving = SystemAddressResolver(), userAgent: String = "ListDelta") {
        self.limits = limits
        self.policy = policy
        self.resolver = resolver
        self.userAgent = userAgent
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(min(limits.timeoutSeconds, 10) * 1_000)), read: .milliseconds(Int64(limits.timeoutSeconds * 1_000))),
            decompression: .disabled)
        configuration.connectionPool = .init(idleTimeout: .seconds(1))
        // Each exchange is traced here, as a client span whose context goes out as `traceparent` (the client's own
        // tracing covers only its async API).
        configuration.tracing.tracer = nil
        self.configuration = configuration
    }

    public func fetch(_ request: FetchRequest) throws(SourceFetchError) -> FetchResponse {
        guard case .web(var url) = request.location else { throw SourceFetchError(.invalidURL, "not a web source") }
        let deadline = NIODeadline.now() + .milliseconds(Int64(limits.timeoutSeconds * 1_000))
        var redirects = 0
        while true {
            let response = try exchange(url, validators: request.validators, deadline: deadline)
            let status = Int(response.status.code)
            switch status {
            case 301, 302, 303, 307, 308:
                redirects += 1
                guard redirects <= limits.maximumRedirects else {
                    throw SourceFetchError(.redirects, "more than \(limits.maximumRedirects) redirects", status: status)
                }
                guard let location = response.headers.first(name: "location") else {
                    throw SourceFetchError(.redirects, "a \(status) redirect without Location", status: status)
                }
                url = try SourceLocation.redirect(location, from: url)
            case 304:
                return FetchResponse(status: 304, body: .notModified, validators: request.validators, finalURL: url)
            case 200...299:
                let body = try Self.inflated(response, limit: limits.maximumBytes)
                let validators = FetchValidators(
                    entityTag: response.headers.first(name: "etag"), lastModified: response.headers.first(name: "last-modified"))
                return FetchResponse(
                    status: status, body: .content(body), validators: validators,
                    charset: Self.charset(response.headers.first(name: "content-type")), finalURL: url)
            default:
                let retryAfter = status == 429 || status == 503 ? RetryAfter.seconds(response.headers.first(name: "retry-after")) : nil
                throw SourceFetchError(
                    .httpStatus, "the source answered \(status) \(response.status.reasonPhrase)", status: status, retryAfter: retryAfter)
            }
        }
    }

    /// One request and its answer, to a host the policy allows, in a client span (OpenTelemetry's HTTP client
    /// conventions) that continues the current trace and is sent on as `traceparent`.
    private func exchange(_ url: URL, validators: FetchValidators, deadline: NIODeadline) throws(SourceFetchError) -> HTTPClient.Response {
        let span = startSpan("GET", ofKind: .client)
        defer { span.end() }
        if span.isRecording {
            span.attributes["http.request.method"] = "GET"
            span.attributes["url.full"] = FetchTracing.fullURL(url)
            if let host = url.host { span.attributes["server.address"] = host }
            if let port = url.port { span.attributes["server.port"] = port }
        }
        do {
            let response = try exchangeUntraced(url, validators: validators, deadline: deadline, traceHeaders: FetchTracing.headers(of: span))
            if span.isRecording {
                span.attributes["http.response.status_code"] = Int(response.status.code)
                if response.status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
            }
            return response
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    private func exchangeUntraced(
        _ url: URL, validators: FetchValidators, deadline: NIODeadline, traceHeaders: [(String, String)]
    ) throws(SourceFetchError) -> HTTPClient.Response {
        let remaining = Double(deadline.uptimeNanoseconds) / 1e9 - Double(NIODeadline.now().uptimeNanoseconds) / 1e9
        guard remaining > 0 else { throw SourceFetchError(.timeout, "no complete answer within \(limits.timeoutSeconds) s") }
        let (bareHost, addresses) = try policy.checkHost(of: url, resolver: resolver, timeoutSeconds: remaining)
        let host = url.host ?? bareHost
        var headers = HTTPHeaders()
        headers.add(name: "User-Agent", value: userAgent)
        headers.add(name: "Accept", value: "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5")
        headers.add(name: "Accept-Encoding", value: "gzip")
        if let tag = validators.entityTag { headers.add(name: "If-None-Match", value: tag) }
        if let date = validators.lastModified { headers.add(name: "If-Modified-Since", value: date) }
        for (name, value) in traceHeaders { headers.add(name: name, value: value) }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url.absoluteString, method: .GET, headers: headers)
        } catch {
            throw SourceFetchError(.invalidURL, "url cannot be requested: \(error)")
        }
        // The raw body is capped at the inflated cap: a gzip body is never larger than what it inflates to
        // (beyond a few bytes of header), and the inflation below is capped too.
        let accumulator = ResponseAccumulator(request: request, maxBodySize: limits.maximumBytes + 1_024)
        // A client per exchange, whose only name is pinned to the address just checked (a client's override
        // is for all its requests). Its connection is not reused: a source is fetched once per interval.
        var pinned = configuration
        if IPAddress(bareHost) == nil { pinned.dnsOverride = [bareHost: addresses[0].description] }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pinned)
        defer { try? client.syncShutdown() }
        do {
            return try client.execute(request: request, delegate: accumulator, deadline: deadline).wait()
        } catch let error as ResponseAccumulator.ResponseTooBigError {
            throw SourceFetchError(.tooLarge, "the body is larger than the \(limits.maximumBytes) bytes a source may read (\(error.maxBodySize))")
        } catch let error as HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                throw SourceFetchError(.timeout, "no complete answer from \(host) within \(limits.timeoutSeconds) s")
            }
            throw SourceFetchError(.network, "\(host): \(error)")
        } catch {
            throw SourceFetchError(.network, "\(host): \(error)")
        }
    }

    private static func inflated(_ response: HTTPClient.Response, limit: Int) throws(SourceFetchError) -> [UInt8] {
        let raw = response.body.map { Array($0.readableBytesView) } ?? []
        let coding = response.headers.first(name: "content-encoding")?.lowercased().trimmingCharacters(in: .whitespaces) ?? "identity"
        switch coding {
        case "identity", "":
            guard raw.count <= limit else {
                throw SourceFetchError(.tooLarge, "the body is larger than the \(limit) bytes a source may read")
            }
            return raw
        case "gzip", "x-gzip":
            do {
                return try Gzip.inflate(raw, limit: limit)
            } catch .tooLarge {
                throw SourceFetchError(.tooLarge, "the body inflates to more than the \(limit) bytes a source may read")
            } catch {
                throw SourceFetchError(.badEncoding, "the gzip body cannot be inflated: \(error)")
            }
        default:
            throw SourceFetchError(.badEncoding, "the body's Content-Encoding \(coding) is not supported (only gzip)")
        }
    }

    /// The `charset` parameter of a `Content-Type`, lowercased.
    static func charset(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")).lowercased()
        }
        return nil
    }
}
