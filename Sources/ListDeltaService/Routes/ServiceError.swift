import HTTPServer
import ListDeltaAccess
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage

/// Every way a request to the service can fail, each with its HTTP status (RFC 9457 problem details).
enum ServiceError: Error {
    case badRequest(String)
    /// A 400 naming the offending part of a parameter with a JSON Pointer (`/lists/2`).
    case invalidParameter(String, pointer: String)
    /// A credential missing, refused or not covering what the request asks (400, 401 or 403).
    case access(AccessError)
    case notFound(String)
    /// A JSON Patch that cannot be applied (409), or that copies too much (413).
    case patchFailed(JSONPatchError)
    case gone(current: Int, detail: String)
    case preconditionFailed(current: Int?, detail: String)
    case payloadTooLarge(String)
    /// A 413: the document a write would make is larger than a list may hold.
    case documentTooLarge(String)
    case unsupportedMediaType(String)
    case unprocessable(DocumentError)
    case unavailable(String)
    case storage(String)
    /// A 422 naming the member of a request body (not a document) that is wrong, by JSON Pointer.
    case invalidMember(String, pointer: String)
    /// A 409: the list is fed by a source or is a view, so only the source's fetches (or its base's writes) write it.
    case fedElsewhere(String)
    /// A 409: a bound of the service would be exceeded (the most sources).
    case limitReached(String)
    /// A 403 that is not about a token: an anonymous write from another origin.
    case forbidden(String)
    /// A 421: the request names a host this instance does not serve that way (an anonymous write to a name that
    /// is not loopback).
    case misdirected(String)
    /// A source's fetch that lost its lease (the source was changed, detached or taken over) before it wrote, or a
    /// view's update that a newer one (or a change of the view) overtook: it writes nothing. Never an answer to a
    /// client.
    case superseded(String)

    /// The problem response.
    var problem: ProblemDetails {
        switch self {
        case .badRequest(let detail):
            return ProblemDetails(status: 400, title: "Bad Request", detail: detail)
        case let .invalidParameter(detail, pointer):
            return ProblemDetails(status: 400, title: "Bad Request", detail: detail, extra: ["pointer": .string(pointer)])
        case .access(let error):
            let titles = [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden"]
            return ProblemDetails(status: error.status, title: titles[error.status] ?? "Forbidden", detail: error.detail)
        case .notFound(let detail):
            return ProblemDetails(status: 404, title: "Not Found", detail: detail)
        case .patchFailed(let error):
            switch error {
            case let .copiesTooMuch(index, limit):
                return ProblemDetails(
                    status: 413, title: "Content Too Large", detail: error.description, extra: ["pointer": .string("/\(index)"), "limit": .int(limit)])
            case .tooManyOperations(let limit):
                return ProblemDetails(
                    status: 413, title: "Content Too Large", detail: error.description, extra: ["pointer": .string("/\(limit)"), "limit": .int(limit)])
            default:
                break
            }
            var extra: [String: ProblemValue] = [:]
            if case let .operationFailed(index, op, path, _) = error {
                extra = ["operation": .int(index), "op": .string(op), "pointer": .string(path)]
            }
            return ProblemDetails(status: 409, title: "Conflict", detail: error.description, extra: extra)
        case let .gone(current, detail):
            return ProblemDetails(status: 410, title: "Gone", detail: detail, extra: ["current": .int(current)])
        case let .preconditionFailed(current, detail):
            return ProblemDetails(status: 412, title: "Precondition Failed", detail: detail, extra: current.map { ["current": .int($0)] } ?? [:])
        case .payloadTooLarge(let detail), .documentTooLarge(let detail):
            return ProblemDetails(status: 413, title: "Content Too Large", detail: detail)
        case .unsupportedMediaType(let detail):
            return ProblemDetails(status: 415, title: "Unsupported Media Type", detail: detail)
        case .unprocessable(let error):
            return ProblemDetails(
                status: 422, title: "Unprocessable Content", detail: error.detail,
                extra: ["pointer": .string(error.pointer.description), "rule": .string(error.code.rawValue)])
        case .unavailable(let detail):
            return ProblemDetails(status: 503, title: "Service Unavailable", detail: detail)
        case .storage(let detail):
            return ProblemDetails(status: 500, title: "Internal Server Error", detail: "storage failed: \(detail)")
        case let .invalidMember(detail, pointer):
            return ProblemDetails(status: 422, title: "Unprocessable Content", detail: detail, extra: ["pointer": .string(pointer)])
        case .forbidden(let detail):
            return ProblemDetails(status: 403, title: "Forbidden", detail: detail)
        case .misdirected(let detail):
            return ProblemDetails(status: 421, title: "Misdirected Request", detail: detail)
        case .fedElsewhere(let detail), .limitReached(let detail), .superseded(let detail):
            return ProblemDetails(status: 409, title: "Conflict", detail: detail)
        }
    }

    /// The `WWW-Authenticate` challenge of an access error (RFC 6750 §3), if it has one.
    var challenge: String? {
        guard case .access(let error) = self else { return nil }
        switch error {
        case .missing: return "Bearer realm=\"listdelta\""
        case .rejected: return "Bearer realm=\"listdelta\", error=\"invalid_token\""
        case .notCovered, .readOnly: return "Bearer realm=\"listdelta\", error=\"insufficient_scope\""
        case .unknownToken, .badRequest: return nil
        }
    }

    /// The problem an engine error is.
    init(_ error: EngineError) {
        switch error {
        case .notFound(let detail): self = .notFound(detail)
        case let .gone(current, detail): self = .gone(current: current, detail: detail)
        case let .preconditionFailed(current, detail): self = .preconditionFailed(current: current, detail: detail)
        case .unprocessable(let error): self = .unprocessable(error)
        case .tooLarge(let detail): self = .documentTooLarge(detail)
        case .unavailable(let detail): self = .unavailable(detail)
        case .limitReached(let detail): self = .limitReached(detail)
        case .storage(let detail): self = .storage(detail)
        case .superseded(let detail): self = .superseded(detail)
        }
    }

    /// The problem of a failed write: what the route's own build refused, or the engine's error.
    init(_ failure: WriteFailure<ServiceError>) {
        switch failure {
        case .refused(let error): self = error
        case .engine(let error): self.init(error)
        }
    }

    /// Runs an engine call, its error mapped to the problem it answers.
    static func mapping<T>(_ call: () throws(EngineError) -> T) throws(ServiceError) -> T {
        do {
            return try call()
        } catch {
            throw ServiceError(error)
        }
    }

    /// Maps a store failure (through the engine's reading of it).
    static func from(_ error: StoreError) -> ServiceError {
        ServiceError(EngineError.from(error))
    }
}
