import ListDeltaFeeds
import ListDeltaSources

/// Why a cycle wrote nothing: the fetch, the parse, or the document the content made.
enum SourceCycleError: Error {
    case fetch(SourceFetchError)
    case parse(FeedParseError)
    case document(ApplicationError)
    /// The fetch lost its lease before it wrote (see `SourceFetchOutcome.superseded`).
    case superseded

    static func wrap<T>(_ body: () throws(SourceFetchError) -> T) throws(SourceCycleError) -> T {
        do {
            return try body()
        } catch {
            throw .fetch(error)
        }
    }

    /// The problem `lastError` shows: 504 for a timeout, 502 for everything else the source did (it is the
    /// upstream of this fetch), with the reason.
    var failure: SourceState.Failure {
        switch self {
        case .fetch(let error):
            let timeout = error.kind == .timeout
            return SourceState.Failure(
                status: timeout ? 504 : 502, title: timeout ? "Gateway Timeout" : "Bad Gateway", detail: error.message,
                reason: error.kind.rawValue, retryAfter: error.retryAfter)
        case .parse(let error):
            return SourceState.Failure(status: 502, title: "Bad Gateway", detail: "the content is not a feed ListDelta can read: \(error.description)", reason: "parse")
        case .superseded:
            return SourceState.Failure(status: 409, title: "Conflict", detail: "the source changed during the fetch", reason: "superseded")
        case .document(let error):
            return SourceState.Failure(status: 502, title: "Bad Gateway", detail: "the content does not make a valid list: \(error.detail)", reason: "document")
        }
    }
}
