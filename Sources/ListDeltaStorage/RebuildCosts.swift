/// What rebuilding an old revision reads each way, in stored bytes (see ``RevisionStore/rebuildCosts(_:revision:from:)``):
/// the engine takes the cheaper way.
public struct RebuildCosts: Sendable, Equatable {
    /// Replaying forwards: the checkpoint's snapshot at or below the revision, then the deltas after it.
    public var forwardBytes: Int
    /// The rows replayed forwards (the checkpoint's included).
    public var forwardRows: Int
    /// Walking back from the newer revision through undo diffs, one per revision between; `nil` when one of them was
    /// not kept (written before undo diffs were).
    public var backwardBytes: Int?
    /// The undo diffs walked back through.
    public var backwardRows: Int

    public init(forwardBytes: Int, forwardRows: Int, backwardBytes: Int?, backwardRows: Int) {
        self.forwardBytes = forwardBytes
        self.forwardRows = forwardRows
        self.backwardBytes = backwardBytes
        self.backwardRows = backwardRows
    }
}
