/// How a `ListFollower` asks for changes.
public struct FollowOptions: Sendable {
    /// The way changes arrive.
    public enum Mode: String, Sendable, CaseIterable {
        /// Long polls of `GET /v1/lists/{id}/diff?from=R&wait=S`, then of the `next` each answer names (verbatim, so
        /// a shared cache collapses the polls of every follower at one revision): one request per change (or per
        /// `wait`, or per `cursorSeconds` interval of the server).
        case poll
        /// The event stream `GET /v1/lists/{id}/events?from=R`: one connection, one event per revision.
        case events
    }

    /// Long polls (the default, as client.js) or the event stream.
    public var mode: Mode = .poll
    /// Seconds a long poll is held by the server when nothing changes (the server caps it). Default 25.
    public var wait: Int = 25
    /// Seconds an event stream may stay silent before it is taken as broken and reopened. The server sends a
    /// comment every 15 s, so the default 45 s allows two lost heartbeats.
    public var streamIdleTimeout: Double = 45
    /// Delays between retries after failures.
    public var backoff = Backoff.Configuration()
    /// A live query to follow instead of the whole list (API.md, "Live queries"): a view definition without `of`,
    /// as JSON text (`{"where":[{"path":"/model/read","op":"eq","value":false}],"limit":20}`). `nil` (the default)
    /// follows the whole list. The iterator's ``ListFollower/Iterator/setQuery(_:)`` changes it with a diff.
    public var query: String?
    /// Extra headers for every request (an `Authorization`, say).
    public var headers: [String: String] = [:]
    /// Told about each failure the follower retries after: the error and the delay before the next attempt.
    public var onRetry: (@Sendable (FollowError, Duration) -> Void)?

    /// Default options: long polls of 25 s, backoff from 0.5 s up to 15 s.
    public init() {}

    /// Options for `mode`, with the other defaults.
    public init(mode: Mode) {
        self.mode = mode
    }
}
