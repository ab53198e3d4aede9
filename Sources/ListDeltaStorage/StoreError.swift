/// An error thrown by a ``RevisionStore``.
///
/// Descriptions never contain stored blob bytes nor SQL arguments.
public enum StoreError: Error, Equatable {
    /// The write was based on a stale view of the list.
    ///
    /// Thrown when `expectedRevision` does not equal the current revision of a live list, or when a create
    /// (`expectedRevision == nil`) targets a list that exists. `current` is the current revision of the live list,
    /// or `nil` when there is no live list.
    case conflict(current: Int?)

    /// The write or the configuration breaks an invariant of the store (the message says which).
    case invalidWrite(String)

    /// The database or the file system failed. The message carries the result code and the database's message only.
    case database(String)

    /// The database cannot be reached (down, restarting, or too slow to answer): retry later. A write that fails so
    /// was not acknowledged; if the connection broke while it committed, it may still have committed (a retry with
    /// `If-Match` tells).
    case unavailable(String)

    /// The list is held by another writer for longer than the store waits (on PostgreSQL, another instance's
    /// transaction keeps its lock past `lock_timeout`): retry later. The database itself answers. Nothing was
    /// written.
    case busy(String)

    /// A bound of the store would be exceeded (the message says which), such as the most sources it holds.
    case limitReached(String)

    /// A view's write was not applied: the view was changed or detached, or another writer already brought it as far
    /// along its base (the message says which). Nothing was written.
    case superseded(String)
}

extension StoreError: CustomStringConvertible {
    /// The message, for logs and start-up errors (`cannot open the store in /data: SQLite error 14: ...`).
    public var description: String {
        switch self {
        case .conflict(let current): current.map { "the list is at revision \($0)" } ?? "there is no live list"
        case .invalidWrite(let message), .database(let message), .unavailable(let message), .busy(let message),
            .limitReached(let message), .superseded(let message):
            message
        }
    }
}
