public import ListDeltaCore
import ListDeltaStorage

extension ListRepository {
    /// The outcome of `revision`, which another instance sharing the store committed, as this instance's own
    /// write of it would have had: the document, the diff from the revision before and that diff rendered, so
    /// that every watcher here is answered from one rendering instead of each reading it on its own.
    ///
    /// `nil` when that is not the case to render: the list moved on (a later announcement covers it), was
    /// deleted, or `revision` starts an incarnation (no revision before it is served).
    /// - Complexity: one read of the head and of the revision's stored delta when the revision before is in
    ///   memory (a watched list's usually is), and O(*n*) to diff the two documents.
    public func committedElsewhere(_ id: String, revision: Int) throws(EngineError) -> WriteOutcome? {
        loopCheck.refuse("reading another instance's revision")
        guard let head = try head(id, atLeast: revision), !head.isDeleted, head.revision == revision,
            revision > head.firstRevision, isServable(revision - 1, head: head)
        else { return nil }
        let previous = try document(id, revision: revision - 1, head: head)
        let document = try document(id, revision: revision, head: head)
        let diff = ListDiff(from: previous, to: document)
        return WriteOutcome(
            document: document, diff: diff, renderedDiff: RenderedBody(diff.jsonValue), previous: previous, created: false, changed: true)
    }
}
