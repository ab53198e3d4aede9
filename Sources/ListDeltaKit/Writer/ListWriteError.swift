/// Why a ``ListWriter``'s write did not land. Failures that pass (no connection, a 5xx, a guard that found the
/// indexes moved) are not errors: the writer sends the write again until one of these or an acknowledgement.
public enum ListWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The write cannot apply: what it names is gone. The view got the rollback as a batch.
    case conflict(WriteConflict)
    /// The server refused the write for another reason (a 400, 413 or 422: a write the rules do not allow).
    case refused(status: Int, detail: String)
    /// The arguments were wrong; nothing was queued.
    case invalid(String)
    /// The writer stopped, without a storage to keep the write for the next one; it may have landed.
    case stopped

    public var description: String {
        switch self {
        case .conflict(let conflict): conflict.description
        case .refused(let status, let detail): "the server refused the write (HTTP \(status))\(detail.isEmpty ? "" : ": \(detail)")"
        case .invalid(let why): "invalid write: \(why)"
        case .stopped: "the writer stopped before the write was acknowledged"
        }
    }
}

/// A write that cannot apply, and what is gone.
public struct WriteConflict: Sendable, Equatable, CustomStringConvertible {
    /// What is gone.
    public enum Reason: String, Error, Sendable, Equatable {
        /// The item the write changes.
        case item
        /// The item the place is after (or it is in another section than the one named).
        case anchor
        /// The section the place names.
        case section
        /// The whole list.
        case list
        /// What a raw patch names (one of its operations failed).
        case patch
    }

    /// What is gone.
    public var reason: Reason
    /// The write.
    public var write: ListWrite

    /// A conflict.
    public init(reason: Reason, write: ListWrite) {
        self.reason = reason
        self.write = write
    }

    public var description: String {
        let what = switch reason {
        case .item: "item \"\(write.itemID ?? "")\""
        case .anchor: "item \"\(write.placement?.anchorID ?? "")\""
        case .section: "section \"\(write.placement?.section ?? "")\""
        case .list: "the list"
        case .patch: "what the patch names"
        }
        return "the \(write.kind) cannot apply: \(what) is gone"
    }
}
