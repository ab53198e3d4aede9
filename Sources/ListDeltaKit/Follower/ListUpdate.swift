public import ListDeltaCore

/// One step of a followed list: the document the client now holds and how it got there.
public struct ListUpdate: Sendable, Equatable {
    /// How the document changed.
    public enum Change: Sendable, Equatable {
        /// The first document, fetched when following began.
        case initial
        /// The batch diff that led from the previous document to this one: perform it on a view.
        case diff(ListDiff)
        /// The previous document could not be carried forward, so this one was fetched whole: reload the view.
        case reset(ListReset)
    }

    /// The document after the change.
    public var document: ListDocument
    /// The change.
    public var change: Change

    /// Creates an update.
    public init(document: ListDocument, change: Change) {
        self.document = document
        self.change = change
    }

    /// The batch diff, when the change is one.
    public var diff: ListDiff? {
        if case .diff(let diff) = change { return diff }
        return nil
    }
}

/// Why a follower fetched the whole document again, and from which revision.
public struct ListReset: Sendable, Equatable {
    /// The reasons client.js gives too.
    public enum Reason: String, Sendable, CaseIterable {
        /// The revision held is no longer served (410: pruned by retention, or the list was recreated).
        case gone
        /// The list was not found (404): deleted. The follower fetches until it exists again.
        case missing
        /// A diff's `counts.from` (or an index) did not fit the document held, or an event was unreadable.
        case check
        /// A diff started from another revision than the one held.
        case mismatch
        /// The event stream sent `event: reset`.
        case event
        /// A ``ListWriter``'s storage held this document and its pending writes: shown at once, before any request.
        case restored
    }

    /// Why.
    public var reason: Reason
    /// The details, in words.
    public var detail: String
    /// The revision held before.
    public var from: Int

    /// Creates a reset.
    public init(reason: Reason, detail: String, from: Int) {
        self.reason = reason
        self.detail = detail
        self.from = from
    }
}
