import Foundation
public import HTTPServer
public import ListDeltaAccess
import ListDeltaApplication
import ListDeltaCoreTestSupport
public import ListDeltaServer
public import ListDeltaService
import Logging

/// The service on a temporary data directory (SQLite), driven in-process: no socket, no HTTP server. Requests are
/// handed to its router and answered to a ``RecordingResponder``.
public final class TestService: Sendable {
    public let service: ListDeltaService
    /// Holds the data directory (``directory``) for as long as this lives.
    private let temporary: TemporaryDirectory
    public var directory: String { temporary.path }

    public init(keys: VerificationKeys = .none, _ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        temporary = try TemporaryDirectory(prefix: "listdelta-test")
        let configuration = ServiceConfiguration.testing(in: temporary.path, configure)
        let logger = Logger.quiet("test")
        service = try ListDeltaService.composed(
            configuration: configuration, store: configuration.openStore(logger: logger), logger: logger, registry: nil, keys: keys)
    }

    deinit {
        service.app.shutdown()
    }

    /// Hands one request to the routes; the returned responder records the answer.
    @discardableResult
    public func send(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        coding: HTTPRequest.BodyCoding = .identity
    ) -> RecordingResponder {
        let responder = RecordingResponder()
        service.router.dispatch(Self.request(method, target, headers: headers, body: body, coding: coding), to: responder)
        return responder
    }

    /// Hands a GET to the routes from a thread of its own, at once: it races whatever the caller does next.
    public func sendFromAnotherThread(_ target: String) -> RecordingResponder {
        let responder = RecordingResponder()
        let request = Self.request(.GET, target)
        Thread.detachNewThread { [service] in service.router.dispatch(request, to: responder) }
        return responder
    }

    /// The request `target` (path and query) names.
    private static func request(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        coding: HTTPRequest.BodyCoding = .identity
    ) -> HTTPRequest {
        let path = String(target.prefix { $0 != "?" })
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            for pair in target[target.index(after: mark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
        }
        return HTTPRequest(
            method: method, path: path, rawPath: target, query: query, headers: headers, body: body, bodyCoding: coding)
    }

    /// Sends and waits for the answer.
    public func answer(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = HTTPHeaders(), json: String? = nil,
        within seconds: Double = 5
    ) -> HTTPResponse? {
        var headers = headers
        if json != nil, headers["Content-Type"] == nil {
            headers["Content-Type"] = method == .PATCH ? "application/json-patch+json" : "application/json"
        }
        return send(method, target, headers: headers, body: Array((json ?? "").utf8)).response(within: seconds)
    }

    /// A PUT of an array list with these item ids; returns the new revision.
    @discardableResult
    public func put(_ id: String, items: [String], headers: HTTPHeaders = HTTPHeaders()) -> Int? {
        let body = #"{"kind":"array","title":"T","items":["# + items.map { #"{"id":"\#($0)","model":{"n":"\#($0)"}}"# }.joined(separator: ",") + "]}"
        guard let response = answer(.PUT, "/v1/lists/\(id)", headers: headers, json: body), response.status < 300 else { return nil }
        return (response.json?["revision"] as? NSNumber)?.intValue
    }
}

extension HTTPResponse {
    /// The plain body bytes (whichever coding the response carries).
    public var plainBody: [UInt8] {
        switch body {
        case .empty: return []
        case .bytes(let bytes): return bytes
        case .precompressed(let plain, _): return plain
        }
    }

    /// The body as a JSON object, if it is one.
    public var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(plainBody))) as? [String: Any]
    }
}
