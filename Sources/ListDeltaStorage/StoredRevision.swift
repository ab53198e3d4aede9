/// A stored revision row, as returned by ``SQLiteStore/chain(_:upTo:)``.
public struct StoredRevision: Sendable, Equatable {
    /// The revision number.
    public var revision: Int

    /// The change from the previous revision; `nil` for the first revision of an incarnation.
    public var delta: [UInt8]?

    /// The full checkpoint at this revision, or `nil` when this revision is not a checkpoint.
    public var snapshot: [UInt8]?

    /// Creates a stored revision.
    ///
    /// - Parameters:
    ///   - revision: The revision number.
    ///   - delta: The change from the previous revision.
    ///   - snapshot: The full checkpoint, if any.
    public init(revision: Int, delta: [UInt8]?, snapshot: [UInt8]?) {
        self.revision = revision
        self.delta = delta
        self.snapshot = snapshot
    }
}
