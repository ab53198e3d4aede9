/// What a shared store tells every instance that uses it about writes made through the others.
public enum StoreAnnouncement: Sendable, Equatable {
    /// Another instance committed `revision` of `list`; `trace` says who wrote it and when, when the writer said.
    case committed(list: String, revision: Int, trace: CommitTrace? = nil)
    /// Another instance deleted `list`, whose last revision was `revision`.
    case deleted(list: String, revision: Int)
    /// Another instance attached, changed or detached `list`'s source or view.
    case sourceChanged(list: String)
    /// Announcements cannot be received for now (the listening connection broke): cached heads may go stale.
    case interrupted
    /// Announcements are received again after an interruption (or for the first time): whatever changed meanwhile
    /// was not announced and must be read again.
    case resumed
}

/// A ``RevisionStore`` several instances share, which announces each one's commits to the others.
public protocol SharedRevisionStore: RevisionStore {
    /// Starts delivering announcements to `handler`, one at a time, in commit order (`resumed` first, once
    /// listening). Call once.
    func startAnnouncements(_ handler: @escaping @Sendable (StoreAnnouncement) -> Void)

    /// `false` while the database cannot be reached (as far as the last attempts tell).
    var isReachable: Bool { get }

    /// Stops announcing and closes the connections. Idempotent.
    func close()
}
