import HTTPServer
import ListDeltaApplication
import ListDeltaEngine
import ListDeltaStorage
import Logging
import ZlibCodec

/// The `Idempotency-Key` of writes (API.md, "Revisions, polling and caching"): the first answer of a write with a
/// key (any status but 5xx, 401 and 403) is kept with its list and answered again to the same key with the same
/// request, with `Idempotent-Replayed: true`, and nothing is written; the same key with another request is 422, and
/// while its first request is under way, 409 with `Retry-After`. The rules are the application's
/// (``IdempotencyKeys``); this is their HTTP side.
enum IdempotentWrites {
    /// The header that carries the key.
    static let header = "Idempotency-Key"

    /// What makes an answer to keep from a write's response: handed to a route, which calls it with its own
    /// response to a write that makes a revision (``ListRepository/write(_:origin:preconditions:mustExist:viewStep:answer:onCommit:build:)``).
    typealias Keeping = (HTTPResponse) -> AnswerToKeep

    /// The request's key, or `nil` when it has none.
    /// - Throws: 400 with `pointer` `/Idempotency-Key` for a key that is not 1-255 visible ASCII characters.
    static func key(_ request: HTTPRequest) throws(ServiceError) -> String? {
        guard let key = request.headers[header] else { return nil }
        guard IdempotencyKeys.isValid(key) else {
            throw .invalidParameter("an Idempotency-Key is 1 to 255 visible ASCII characters", pointer: "/\(header)")
        }
        return key
    }

    /// Answers a write of the request's list: `write`'s answer when the request has no key; else, under the key's
    /// rules, the kept answer or `write`'s (kept). `write` gets the keeping to pass on when it has a key.
    static func answer(
        _ request: HTTPRequest, _ context: RouteContext,
        _ write: (_ keeping: Keeping?) throws(ServiceError) -> HTTPResponse
    ) -> HTTPResponse {
        let keys = context.app.idempotency
        let claim: IdempotencyKeys.Claim
        let listID: String
        do throws(ServiceError) {
            guard let key = try key(request) else { return RouteContext.answer { () throws(ServiceError) in try write(nil) } }
            listID = try RequestReading.listID(request)
            let fingerprint = IdempotencyKeys.fingerprint(
                method: request.method.rawValue, contentEncoding: request.headers["Content-Encoding"], body: request.body)
            claim = try ServiceError.mapping { () throws(ApplicationError) in try keys.claim(key, listID: listID, fingerprint: fingerprint) }
        } catch {
            return Responses.problem(error)
        }
        guard case .write(let ticket) = claim else { return response(of: claim) }
        defer { keys.release(ticket) }
        var keptWithRevision: AnswerToKeep?
        let response = RouteContext.answer { () throws(ServiceError) in
            try write { response in
                let kept = answer(response, ticket)
                keptWithRevision = kept
                return kept
            }
        }
        if keptWithRevision != nil, (200..<300).contains(response.status) { return response }
        guard isKept(response.status) else { return response }
        if let won = try? keys.keptClaim(ticket) {
            // Another instance's request with this key committed while this one was written (the store refused
            // this one, or it was built again on the other's revision and refused): the first answer stands.
            return self.response(of: won)
        }
        do {
            try keys.keep(answer(response, ticket), for: ticket)
        } catch {
            context.app.logger.warning(
                "an idempotent write's answer could not be kept", metadata: ["list": "\(listID)", "error": "\(error.detail)"])
        }
        return response
    }

    /// Whether an answer of this status is kept: all but 5xx, 401 and 403 (a client fixes those and sends again).
    static func isKept(_ status: Int) -> Bool {
        status < 500 && status != 401 && status != 403
    }

    /// The header fields an answer is replayed with.
    private static let keptFields = ["Content-Type", "ETag", "Location", "Cache-Control"]

    private static func answer(_ response: HTTPResponse, _ ticket: IdempotencyKeys.Ticket) -> AnswerToKeep {
        let fields = keptFields.compactMap { name in response.headers[name].map { "\(name): \($0)" } }.joined(separator: "\n")
        switch response.body {
        case .empty: return ticket.answer(status: response.status, headerFields: fields, body: [], bodyIsGzip: false)
        case .bytes(let plain): return ticket.answer(status: response.status, headerFields: fields, body: plain, bodyIsGzip: false)
        case .precompressed(_, let gzip): return ticket.answer(status: response.status, headerFields: fields, body: gzip, bodyIsGzip: true)
        }
    }

    /// The answer of a claim that writes nothing.
    private static func response(of claim: IdempotencyKeys.Claim) -> HTTPResponse {
        switch claim {
        case .replay(let answer):
            return replay(answer)
        case .reused:
            return Responses.problem(
                .idempotencyKeyReused("this Idempotency-Key was first sent with another request (method or body) to this list"))
        case .inFlight, .write:
            var response = Responses.problem(.idempotencyKeyInFlight("the first request with this Idempotency-Key is still being written"))
            response.headers["Retry-After"] = "1"
            return response
        }
    }

    /// A kept answer, again.
    static func replay(_ answer: IdempotentAnswer) -> HTTPResponse {
        var headers = HTTPHeaders()
        for line in answer.headerFields.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = String(line[line.index(after: colon)...].drop { $0 == " " })
        }
        headers["Idempotent-Replayed"] = "true"
        guard answer.bodyIsGzip, let plain = try? Gzip.inflate(answer.body, limit: Int.max) else {
            return HTTPResponse(status: answer.status, headers: headers, body: answer.body.isEmpty ? .empty : .bytes(answer.body))
        }
        return HTTPResponse(status: answer.status, headers: headers, body: .precompressed(plain: plain, gzip: answer.body))
    }
}
