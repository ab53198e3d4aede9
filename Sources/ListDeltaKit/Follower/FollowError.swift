import ListDeltaCore

/// A failure a follower retries after (with backoff): what `FollowOptions.onRetry` is told.
public enum FollowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No answer: no connection, a timeout, a broken connection.
    case transport(TransportError)
    /// An answer with an unexpected status; `detail` is the problem's `detail` when the body is one.
    case status(Int, detail: String)
    /// An answer whose body is not what docs/api.md says it is.
    case unreadable(String)
    /// The event stream ended or broke; it is reopened from the revision held.
    case streamEnded(String)
    /// The document must be fetched again (`reset`) after `count` fetches in a row with no diff applied in
    /// between: the next fetch waits, longer each time, so a server that keeps refusing is not hammered.
    case repeatedReset(ListReset, count: Int)

    public var description: String {
        switch self {
        case .transport(let error): "no answer: \(error.message)"
        case .status(let status, let detail): "HTTP \(status)\(detail.isEmpty ? "" : ": \(detail)")"
        case .unreadable(let what): "unreadable answer: \(what)"
        case .streamEnded(let why): "event stream ended: \(why)"
        case .repeatedReset(let reset, let count): "fetching the document again (\(reset.reason.rawValue)) after \(count) fetches without a diff"
        }
    }
}
