public import ListDeltaCore
public import ListDeltaStorage

/// Every way the engine refuses or fails a read or a write, in its own terms: an HTTP adapter maps each to its
/// status (the routes answer them as RFC 9457 problems).
public enum EngineError: Error, Sendable {
    /// There is no such list (or it was deleted).
    case notFound(String)
    /// The revision asked for is not kept (older than the oldest retained) or does not exist yet; `current` is the
    /// list's revision.
    case gone(current: Int, detail: String)
    /// A write's precondition does not hold; `current` is the list's revision, if it exists.
    case preconditionFailed(current: Int?, detail: String)
    /// A written document breaks a rule of the document format.
    case unprocessable(DocumentError)
    /// A written document would be larger than a list may hold (``DocumentLimits/maximumDocumentBytes``).
    case tooLarge(String)
    /// The store cannot be reached now; a retry may succeed.
    case unavailable(String)
    /// A bound of the store would be exceeded.
    case limitReached(String)
    /// The store failed, or what it holds does not replay.
    case storage(String)
    /// A view's write was not applied because a newer one (or a change of the view) came first.
    case superseded(String)

    /// The error in words (for a problem's `detail`, a source's `lastError`, a log line).
    public var detail: String {
        switch self {
        case .notFound(let detail), .unavailable(let detail), .limitReached(let detail), .storage(let detail), .superseded(let detail),
            .tooLarge(let detail):
            detail
        case .gone(_, let detail), .preconditionFailed(_, let detail): detail
        case .unprocessable(let error): error.detail
        }
    }

    /// Maps a store failure.
    public static func from(_ error: StoreError) -> EngineError {
        switch error {
        case .conflict(let current):
            return .preconditionFailed(current: current, detail: "the list changed: its revision is \(current.map(String.init) ?? "none")")
        case .invalidWrite(let reason), .database(let reason):
            return .storage(reason)
        case .unavailable(let reason):
            return .unavailable("the database is unavailable (\(reason)); retry shortly")
        case .busy(let reason):
            return .unavailable("the list is busy (\(reason)); retry shortly")
        case .limitReached(let reason):
            return .limitReached(reason)
        case .superseded(let reason):
            return .superseded(reason)
        }
    }
}

/// Why a write (``ListRepository/write(_:origin:preconditions:mustExist:onCommit:build:)``) made no revision.
public enum WriteFailure<Refusal: Error>: Error {
    /// The caller's `build` refused to make the new document, with its own error.
    case refused(Refusal)
    /// The engine failed the write (a precondition, the store, a stored revision).
    case engine(EngineError)
}
