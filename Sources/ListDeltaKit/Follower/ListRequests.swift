import Foundation
import ListDeltaCore

extension FollowOptions {
    /// `headers` with `Accept: accept`: what every request of a follower or a writer carries.
    func headers(accept: String) -> [String: String] {
        var headers = headers
        headers["Accept"] = accept
        return headers
    }
}

extension ListTransport {
    /// GETs `url` as JSON, with `options`' headers.
    /// - Throws: ``FollowError/transport(_:)`` when there is no answer.
    func get(_ url: URL, options: FollowOptions, idleTimeout: Double) async throws(FollowError) -> TransportResponse {
        do {
            return try await send(TransportRequest(url: url, headers: options.headers(accept: "application/json"), idleTimeout: idleTimeout))
        } catch {
            throw .transport(error)
        }
    }

    /// The document at `url` (`GET /v1/lists/{id}[?q=…]`).
    /// - Throws: ``FollowError/status(_:detail:)`` for an answer other than 200 (404: no list), else as ``get(_:options:idleTimeout:)``
    ///   and ``FollowError/unreadable(_:)``.
    func document(at url: URL, options: FollowOptions) async throws(FollowError) -> ListDocument {
        let response = try await get(url, options: options, idleTimeout: 30)
        guard response.status == 200 else { throw .status(response.status, detail: ResponseBody.detail(response.body)) }
        return try ResponseBody.document(response.body)
    }
}
