public import ListDeltaCore
public import ListDeltaStorage

/// The result of a write.
public struct WriteOutcome: Sendable {
    /// The document now current.
    public let document: ListDocument
    /// The batch diff from the previous revision (from 0 on create); empty when nothing changed.
    public let diff: ListDiff
    /// ``diff`` as served (batch format), rendered and compressed once for every use.
    public let renderedDiff: RenderedBody
    /// The previous document, or the empty list on create.
    public let previous: ListDocument
    /// `true` when the write created the list.
    public let created: Bool
    /// `false` when the write changed nothing and made no revision.
    public let changed: Bool
    /// Who wrote it and when (the writer's trace context, the commit's time), for the watchers it wakes; `nil` for
    /// a write that changed nothing.
    public var trace: CommitTrace?
}
