/// Which write made a revision.
public enum RevisionOrigin: Sendable, Equatable {
    /// A whole document (PUT).
    case put
    /// A JSON Patch (PATCH).
    case patch
    /// A revert to an earlier revision's content.
    case revert(to: Int)
    /// A fetch of the list's source.
    case source
    /// The view's query over its base list `of`, at the base's revision `revision` (0: the base did not exist).
    case view(of: String, revision: Int)
}

/// The size of a batch diff: how many of each operation it holds.
public struct OperationCounts: Sendable, Equatable {
    public var deleted: Int
    public var inserted: Int
    public var moved: Int
    public var updated: Int

    /// Creates counts.
    public init(deleted: Int = 0, inserted: Int = 0, moved: Int = 0, updated: Int = 0) {
        self.deleted = deleted
        self.inserted = inserted
        self.moved = moved
        self.updated = updated
    }
}

/// What the history shows about one revision, stored with it and never rebuilt from documents.
///
/// Revisions written before summaries were kept have `nil` for everything but ``revision``.
public struct RevisionSummary: Sendable, Equatable {
    /// The revision number (set by the store when reading; ignored when writing).
    public var revision: Int
    /// When the revision committed, in milliseconds since the Unix epoch (the server's clock).
    public var committedAtMilliseconds: Int64?
    /// The write that made it.
    public var origin: RevisionOrigin?
    /// Section and item counts after the revision.
    public var sectionCount: Int?
    public var itemCount: Int?
    /// The size of the batch diff from the previous revision: sections, then items.
    public var sectionChanges: OperationCounts?
    public var itemChanges: OperationCounts?

    /// Creates a summary.
    ///
    /// - Parameters: One per stored property, see each property.
    public init(
        revision: Int = 0, committedAtMilliseconds: Int64?, origin: RevisionOrigin?, sectionCount: Int?, itemCount: Int?,
        sectionChanges: OperationCounts?, itemChanges: OperationCounts?
    ) {
        self.revision = revision
        self.committedAtMilliseconds = committedAtMilliseconds
        self.origin = origin
        self.sectionCount = sectionCount
        self.itemCount = itemCount
        self.sectionChanges = sectionChanges
        self.itemChanges = itemChanges
    }

    /// The columns of the change counts, sections then items, each deleted, inserted, moved, updated.
    public static let changeColumns = ["section", "item"].flatMap { kind in
        ["deleted", "inserted", "moved", "updated"].map { "\(kind)_\($0)" }
    }

    /// The change counts in ``changeColumns``' order (`nil` where the summary has none).
    public var changeCounts: [Int?] {
        [sectionChanges, itemChanges].flatMap { counts in [counts?.deleted, counts?.inserted, counts?.moved, counts?.updated] }
    }

    /// The section and item changes read back from counts in ``changeColumns``' order: each group is `nil` unless
    /// all four of its counts are there.
    public static func changes(fromCounts counts: [Int?]) -> (sections: OperationCounts?, items: OperationCounts?) {
        func operations(_ offset: Int) -> OperationCounts? {
            guard counts.count >= offset + 4, let deleted = counts[offset], let inserted = counts[offset + 1],
                let moved = counts[offset + 2], let updated = counts[offset + 3] else { return nil }
            return OperationCounts(deleted: deleted, inserted: inserted, moved: moved, updated: updated)
        }
        return (operations(0), operations(4))
    }
}

extension RevisionOrigin {
    /// The name a store keeps (`put`, `patch`, `revert`, `source`, or `view:<base id>`); a revert's target and a
    /// view's base revision are kept beside it (``storedRevision``).
    public var storedName: String {
        switch self {
        case .put: "put"
        case .patch: "patch"
        case .revert: "revert"
        case .source: "source"
        case .view(let base, _): Self.viewPrefix + base
        }
    }

    /// The origin a store kept, or `nil` for an unknown name (or a revert or view without its revision).
    public init?(storedName: String?, storedRevision: Int?) {
        switch storedName {
        case "put": self = .put
        case "patch": self = .patch
        case "revert":
            guard let storedRevision else { return nil }
            self = .revert(to: storedRevision)
        case "source": self = .source
        case let name? where name.hasPrefix(Self.viewPrefix) && name.count > Self.viewPrefix.count:
            guard let storedRevision else { return nil }
            self = .view(of: String(name.dropFirst(Self.viewPrefix.count)), revision: storedRevision)
        default: return nil
        }
    }

    /// The revision a store keeps beside the name: the one a revert went back to, or a view's base revision; else
    /// `nil`.
    public var storedRevision: Int? {
        switch self {
        case .revert(let to): to
        case .view(_, let revision): revision
        case .put, .patch, .source: nil
        }
    }

    /// A view's stored name is this prefix and its base's id (list ids hold no colon).
    private static let viewPrefix = "view:"
}
