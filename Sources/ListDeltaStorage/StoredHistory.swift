/// One page of a list's history, read from one consistent snapshot of the database.
public struct HistoryPage: Sendable, Equatable {
    /// The list's head when the page was read.
    public var head: ListHead
    /// Summaries of served revisions, newest first.
    public var revisions: [RevisionSummary]
    /// Whether older served revisions follow the page.
    public var hasMore: Bool

    /// Creates a page.
    public init(head: ListHead, revisions: [RevisionSummary], hasMore: Bool) {
        self.head = head
        self.revisions = revisions
        self.hasMore = hasMore
    }
}

/// The diff that undoes one revision, as stored (see ``RevisionWrite/undo``).
public struct StoredUndo: Sendable, Equatable {
    /// The revision it undoes: applied to this revision's document it gives `revision - 1`'s.
    public var revision: Int
    /// The blob, or `nil` for a revision written before undo diffs were kept.
    public var undo: [UInt8]?

    /// Creates a stored undo diff.
    public init(revision: Int, undo: [UInt8]?) {
        self.revision = revision
        self.undo = undo
    }
}

