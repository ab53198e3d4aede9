import Tracing
import Dispatch
import Foundation
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Metrics
import Synchronization

/// Brings the followed queries of one base up to date with the base as it is now, once per base revision for all
/// of them, and wakes the followers of each query whose result changed.
///
/// One updater per base, one update at a time (``BaseScheduler``): an update reads the base's current head, so base
/// revisions that come quickly fold into one update. It keeps the base as the queries last read it, so that the
/// base's change is diffed once (or taken from the write that made it) and each query's index updates from it.
struct QueryUpdater: Sendable {
    let base: String
    private var lastBase: ViewBase?
    private var lastRevision: Int?

    /// The base revision the queries last read (`nil` before the first update).
    var revision: Int? { lastRevision }

    /// Fewer entries than this are updated on one thread.
    private static let entriesPerPart = 64

    init(base: String) {
        self.base = base
    }

    /// Updates every entry of `entries` to the base's current revision (`hint`: the write that made it, when this
    /// instance did), telling `changed` of each entry whose result changed as soon as it is updated.
    /// - Complexity: one diff of the base, O(*n*) (none with `hint`), plus each entry's
    ///   ``QueryEntry/advance(to:revision:previous:diff:)``.
    /// - Returns: How many results changed.
    @discardableResult
    mutating func update(
        _ entries: [QueryEntry], hint: WriteOutcome?, repository: ListRepository, bases: SharedBases, changed: @Sendable (QueryEntry) -> Void
    ) throws(EngineError) -> Int {
        try Spans.with("listdelta.query.update") { (span) throws(EngineError) -> Int in
            if span.isRecording {
                span.attributes["listdelta.list.id"] = base
                span.attributes["listdelta.queries"] = entries.count
            }
            let changes = try updateEntries(entries, hint: hint, repository: repository, bases: bases, changed: changed)
            if span.isRecording { span.attributes["listdelta.queries.changed"] = changes }
            return changes
        }
    }

    private mutating func updateEntries(
        _ entries: [QueryEntry], hint: WriteOutcome?, repository: ListRepository, bases: SharedBases, changed: @Sendable (QueryEntry) -> Void
    ) throws(EngineError) -> Int {
        guard !entries.isEmpty else {
            lastBase = nil
            lastRevision = nil
            return 0
        }
        guard let head = try repository.head(base), !head.isDeleted else { return 0 }
        let current: ViewBase
        var diff: ListDiff?
        if let lastBase, lastRevision == head.revision {
            current = lastBase
        } else {
            let document = try ViewUpdater.document(of: base, at: head, hint: hint, repository: repository)
            current = bases.base(base, revision: head.revision) { ViewBase(document) }
            if let lastBase, let document, let previous = lastBase.document {
                if let hint, hint.document.revision == document.revision, hint.previous.revision == previous.revision {
                    diff = hint.diff
                } else {
                    diff = ListDiff(from: previous, to: document)
                }
            }
        }
        // The entries are independent: split over the processors, each part in order, each change told at once.
        let count = Atomic(0)
        let parts = min(ProcessInfo.processInfo.activeProcessorCount, 1 + entries.count / Self.entriesPerPart)
        let previous = lastRevision
        let baseDiff = diff
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            for index in stride(from: part, to: entries.count, by: parts)
            where entries[index].advance(to: current, revision: head.revision, previous: previous, diff: baseDiff) {
                changed(entries[index])
                count.add(1, ordering: .relaxed)
            }
        }
        lastBase = current
        lastRevision = head.revision
        return count.load(ordering: .relaxed)
    }
}
