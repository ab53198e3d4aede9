import HTTPServer
import ListDeltaAccess
import ListDeltaApplication
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage

/// Every way a request can fail, each with its HTTP status (RFC 9457 problem details): what the HTTP adapter itself
/// refuses (a malformed parameter, a token, a media type), and the application's and the engine's errors, which it
/// maps here and nowhere else.
enum ServiceError: Error {
    case badRequest(String)
    /// A 400 naming the offending part of a parameter with a JSON Pointer (`/lists/2`).
    case invalidParameter(String, pointer: String)
    /// A credential missing, refused or not covering what the request asks (400, 401 or 403).
    case access(AccessError)
    /// A 403 that is not about a token: an anonymous write from another origin.
    case forbidden(String)
    /// A 421: the request names a host this instance does not serve that way (an anonymous write to a name that
    /// is not loopback).
    case misdirected(String)
    /// A 404 of the HTTP layer's own (a page module): the application's are in ``application(_:)``.
    case notFound(String)
    /// A JSON Patch that cannot be applied (409), or that copies too much or has too many operations (413).
    case patchFailed(JSONPatchError)
    case payloadTooLarge(String)
    case unsupportedMediaType(String)
    /// A 422 for a body the adapter reads itself (too deep to be read).
    case unprocessable(DocumentError)
    /// A 503 of the adapter's own (a full queue).
    case unavailable(String)
    /// An `Idempotency-Key` first sent with another request to the list (422).
    case idempotencyKeyReused(String)
    /// An `Idempotency-Key` whose first request is still being written (409; the caller adds `Retry-After`).
    case idempotencyKeyInFlight(String)
    /// What the engine refused or failed.
    case engine(EngineError)
    /// What the application refused or failed.
    case application(ApplicationError)

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
        case .forbidden(let detail):
            return ProblemDetails(status: 403, title: "Forbidden", detail: detail)
        case .misdirected(let detail):
            return ProblemDetails(status: 421, title: "Misdirected Request", detail: detail)
        case .notFound(let detail):
            return ProblemDetails(status: 404, title: "Not Found", detail: detail)
        case .patchFailed(let error):
            return Self.problem(of: error)
        case .payloadTooLarge(let detail):
            return ProblemDetails(status: 413, title: "Content Too Large", detail: detail)
        case .unsupportedMediaType(let detail):
            return ProblemDetails(status: 415, title: "Unsupported Media Type", detail: detail)
        case .unprocessable(let error):
            return Self.problem(of: error)
        case .unavailable(let detail):
            return ProblemDetails(status: 503, title: "Service Unavailable", detail: detail)
        case .idempotencyKeyReused(let detail):
            return ProblemDetails(status: 422, title: "Unprocessable Content", detail: detail, extra: ["pointer": .string("/Idempotency-Key")])
        case .idempotencyKeyInFlight(let detail):
            return ProblemDetails(status: 409, title: "Conflict", detail: detail, extra: ["pointer": .string("/Idempotency-Key")])
        case .engine(let error):
            return Self.problem(of: error)
        case .application(let error):
            return Self.problem(of: error)
        }
    }

    /// The problem of an engine error (docs/api.md, Errors).
    private static func problem(of error: EngineError) -> ProblemDetails {
        switch error {
        case .notFound(let detail):
            return ProblemDetails(status: 404, title: "Not Found", detail: detail)
        case let .gone(current, detail):
            return ProblemDetails(status: 410, title: "Gone", detail: detail, extra: ["current": .int(current)])
        case let .preconditionFailed(current, detail):
            return ProblemDetails(status: 412, title: "Precondition Failed", detail: detail, extra: current.map { ["current": .int($0)] } ?? [:])
        case .unprocessable(let error):
            return problem(of: error)
        case .tooLarge(let detail):
            return ProblemDetails(status: 413, title: "Content Too Large", detail: detail)
        case .unavailable(let detail):
            return ProblemDetails(status: 503, title: "Service Unavailable", detail: detail)
        case .storage(let detail):
            return ProblemDetails(status: 500, title: "Internal Server Error", detail: "storage failed: \(detail)")
        case .limitReached(let detail), .superseded(let detail):
            return ProblemDetails(status: 409, title: "Conflict", detail: detail)
        }
    }

    /// The problem of an application error.
    private static func problem(of error: ApplicationError) -> ProblemDetails {
        switch error {
        case .engine(let error):
            return problem(of: error)
        case .malformedBody(let detail):
            return ProblemDetails(status: 400, title: "Bad Request", detail: detail)
        case let .invalidMember(detail, pointer):
            return ProblemDetails(status: 422, title: "Unprocessable Content", detail: detail, extra: ["pointer": .string(pointer)])
        case .fedElsewhere(let detail), .superseded(let detail):
            return ProblemDetails(status: 409, title: "Conflict", detail: detail)
        case .notFound(let detail):
            return ProblemDetails(status: 404, title: "Not Found", detail: detail)
        case .invalidOptions(let detail):
            return ProblemDetails(status: 500, title: "Internal Server Error", detail: detail)
        }
    }

    /// A document rule broken (422 with the rule and its pointer).
    private static func problem(of error: DocumentError) -> ProblemDetails {
        ProblemDetails(
            status: 422, title: "Unprocessable Content", detail: error.detail,
            extra: ["pointer": .string(error.pointer.description), "rule": .string(error.code.rawValue)])
    }

    /// A JSON Patch that cannot apply (409 naming the operation), or that is over a bound (413 naming it).
    private static func problem(of error: JSONPatchError) -> ProblemDetails {
        switch error {
        case let .copiesTooMuch(index, limit):
            return ProblemDetails(
                status: 413, title: "Content Too Large", detail: error.description, extra: ["pointer": .string("/\(index)"), "limit": .int(limit)])
        case .tooManyOperations(let limit):
            return ProblemDetails(
                status: 413, title: "Content Too Large", detail: error.description, extra: ["pointer": .string("/\(limit)"), "limit": .int(limit)])
        case let .operationFailed(index, op, path, _):
            return ProblemDetails(
                status: 409, title: "Conflict", detail: error.description, extra: ["operation": .int(index), "op": .string(op), "pointer": .string(path)])
        case .invalidPatch:
            return ProblemDetails(status: 409, title: "Conflict", detail: error.description)
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

    /// The problem of a failed write: what the route's own build refused, or the engine's error.
    init(_ failure: WriteFailure<ServiceError>) {
        switch failure {
        case .refused(let error): self = error
        case .engine(let error): self = .engine(error)
        }
    }

    /// Runs an engine call, its error mapped to the problem it answers.
    static func mapping<T>(_ call: () throws(EngineError) -> T) throws(ServiceError) -> T {
        do {
            return try call()
        } catch {
            throw .engine(error)
        }
    }

    /// Runs an application call, its error mapped to the problem it answers.
    static func mapping<T>(_ call: () throws(ApplicationError) -> T) throws(ServiceError) -> T {
        do {
            return try call()
        } catch {
            throw .application(error)
        }
    }

    /// Maps a store failure (through the engine's reading of it).
    static func from(_ error: StoreError) -> ServiceError {
        .engine(EngineError.from(error))
    }
}
