public import ListDeltaStorage

/// Which way an old revision is rebuilt: the one that reads and decodes fewer bytes.
///
/// Back from the current document through undo diffs costs what each revision between changed; forwards from the
/// checkpoint costs the checkpoint's snapshot plus what each revision after it changed. A list edited a few items
/// at a time has small undo diffs and large snapshots, so going back wins over a long distance; a list rewritten
/// wholesale has undo diffs as large as the document and a checkpoint every revision or two, so the checkpoint
/// wins past a revision or two.
public enum RebuildPath: Sendable, Equatable {
    /// Walk back from the current document, in memory, through the undo diffs.
    case backwards
    /// Replay forwards from the checkpoint at or below the revision (or a newer revision of that chain in memory).
    case forwards

    /// What replaying one row costs beside its bytes (reading it, inflating a blob, setting up its replay), counted
    /// in bytes: a walk through many tiny diffs is not free.
    static let rowCost = 256

    /// The cheaper way for these costs; forwards when an undo diff on the way back is missing.
    /// - Complexity: O(1).
    public static func cheaper(for costs: RebuildCosts) -> RebuildPath {
        guard let backwardBytes = costs.backwardBytes else { return .forwards }
        let backwards = backwardBytes + costs.backwardRows * rowCost
        let forwards = costs.forwardBytes + costs.forwardRows * rowCost
        return backwards <= forwards ? .backwards : .forwards
    }
}
