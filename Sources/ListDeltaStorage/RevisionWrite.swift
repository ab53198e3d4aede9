/// One revision to append with ``RevisionStore/append(_:)``.
public struct RevisionWrite: Sendable {
    /// The list identifier. Must not be empty.
    public var listID: String

    /// The revision the writer based its change on.
    ///
    /// `nil` creates the list (it must be absent or deleted). Otherwise it must equal the current revision of a live
    /// list, or the append throws ``StoreError/conflict(current:)``.
    public var expectedRevision: Int?

    /// The list kind, stored in the head for the list index.
    public var kind: String

    /// The number of sections after this revision. Must not be negative.
    public var sectionCount: Int

    /// The number of items after this revision. Must not be negative.
    public var itemCount: Int

    /// The change from the previous revision.
    ///
    /// Must be `nil` for the first revision of an incarnation (a create) and non-`nil` otherwise.
    public var delta: [UInt8]?

    /// A full checkpoint of the list at this revision, or `nil`.
    ///
    /// Required for the first revision of an incarnation. A non-`nil` snapshot resets
    /// ``ListHead/deltaBytesSinceCheckpoint`` to 0.
    public var snapshot: [UInt8]?

    /// What the history shows about this revision (its `revision` is ignored), or `nil` to store none.
    public var summary: RevisionSummary?

    /// The diff that leads from this revision back to the previous one, or `nil` (always for a create).
    public var undo: [UInt8]?

    /// For a view's revision: the step of its base it was computed from. The append then also checks, in the same
    /// transaction, that the view (``ViewStore``) still has that generation and a lower ``StoredView/baseStep``,
    /// and records the step; otherwise it writes nothing and throws ``StoreError/superseded(_:)``. `nil` for
    /// every other write.
    public var viewStep: ViewStep?

    /// The answer to the write's `Idempotency-Key`, kept in the same transaction, or `nil`. When the list has an
    /// answer for that key that has not expired, the append writes nothing and throws
    /// ``StoreError/conflict(current:)``: a key is applied once.
    public var answer: AnswerToKeep?

    /// Who wrote it and when, carried to the other instances with the announcement of the commit (a shared store),
    /// or `nil`.
    public var trace: CommitTrace?

    /// Creates a revision write.
    ///
    /// - Parameters: One per stored property, see each property.
    public init(
        listID: String,
        expectedRevision: Int?,
        kind: String,
        sectionCount: Int,
        itemCount: Int,
        delta: [UInt8]?,
        snapshot: [UInt8]?,
        summary: RevisionSummary? = nil,
        undo: [UInt8]? = nil,
        viewStep: ViewStep? = nil,
        answer: AnswerToKeep? = nil,
        trace: CommitTrace? = nil
    ) {
        self.listID = listID
        self.expectedRevision = expectedRevision
        self.kind = kind
        self.sectionCount = sectionCount
        self.itemCount = itemCount
        self.delta = delta
        self.snapshot = snapshot
        self.summary = summary
        self.undo = undo
        self.viewStep = viewStep
        self.answer = answer
        self.trace = trace
    }
}
