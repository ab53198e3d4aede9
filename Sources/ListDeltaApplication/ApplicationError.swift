public import ListDeltaCore
public import ListDeltaEngine
public import ListDeltaStorage

/// Every way the application refuses or fails what it is asked, in its own terms (an HTTP adapter maps each to a
/// status): the engine's errors, and the rules of sources and views.
public enum ApplicationError: Error, Sendable {
    /// What the engine refused or failed (a missing list, a precondition, the store).
    case engine(EngineError)
    /// A request body that is not of the form asked for (a source's settings that are not an object).
    case malformedBody(String)
    /// A member of a request body that is wrong, by JSON Pointer (a source's `url`, a view's `where`).
    case invalidMember(String, pointer: String)
    /// The list is fed by a source or is a view, so only its fetches (or its base's writes) write it; or a source
    /// and a view were asked of one list.
    case fedElsewhere(String)
    /// There is no such source or view.
    case notFound(String)
    /// A write that a newer one (a source's fetch that lost its lease, a view's update overtaken) came before: it
    /// writes nothing. Never an answer to a client.
    case superseded(String)
    /// An option the application was given cannot be used (the composition root validates them first).
    case invalidOptions(String)

    /// The application error of a store failure (through the engine's reading of it).
    public static func from(_ error: StoreError) -> ApplicationError {
        .engine(EngineError.from(error))
    }

    /// Runs an engine call, its error wrapped.
    public static func mapping<T>(_ call: () throws(EngineError) -> T) throws(ApplicationError) -> T {
        do {
            return try call()
        } catch {
            throw .engine(error)
        }
    }

    /// The error in words, for logs and a source's `lastError`.
    public var detail: String {
        switch self {
        case .engine(let error): error.detail
        case .malformedBody(let detail), .fedElsewhere(let detail), .notFound(let detail), .superseded(let detail), .invalidOptions(let detail):
            detail
        case .invalidMember(let detail, _): detail
        }
    }
}
