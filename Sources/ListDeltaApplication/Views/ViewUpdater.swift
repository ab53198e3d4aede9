import Tracing
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Logging
import Metrics

/// Brings the views of one base up to date with the base as it is now, and keeps what makes the next update
/// cheap: the base as the views last read it, and each view's ``ViewIndex`` (its filtered, sorted matches).
///
/// One updater per base, and one update at a time per updater (``BaseScheduler`` sees to it): an update reads
/// the base's current head, so several base revisions that come quickly fold into one update. Each view's new
/// content is written through the repository like any write, as a revision by `{"op":"view"}`, guarded by its
/// ``ViewStep``: the store commits it only while it moves the view forward, so however many instances update a
/// view, its revisions follow its base's order, and a view's content is never set back to an older base
/// revision's.
struct ViewUpdater: Sendable {
    let base: String
    /// The base as the indexes last read it, and its step; `nil` before the first update.
    private var lastBase: ViewBase?
    private var lastStep: Int?
    private var tracked: [String: TrackedView] = [:]

    /// A view's index, and the revision of the view's list known to hold the index's document (`nil`: not known,
    /// for instance after another instance wrote the view): only from that revision may an update that leaves the
    /// document as it was record the new step without comparing documents.
    private struct TrackedView {
        var generation: Int
        var index: ViewIndex
        var syncedRevision: Int?
    }

    init(base: String) {
        self.base = base
    }

    /// Updates every view of the base in `views` (the registry's, each with its generation) to the base's
    /// current revision. `hint` is the write that made that revision, when this instance made it: its diff then
    /// spares diffing the base again.
    /// - Throws: What reading the base threw; a view whose update fails is logged and left to the next sweep.
    mutating func update(_ views: [StoredView], hint: WriteOutcome?, app: Application) throws(EngineError) {
        try Spans.with("listdelta.view.update") { (span) throws(EngineError) in
            if span.isRecording {
                span.attributes["listdelta.list.id"] = base
                span.attributes["listdelta.views"] = views.count
            }
            try updateViews(views, hint: hint, app: app)
        }
    }

    private mutating func updateViews(_ views: [StoredView], hint: WriteOutcome?, app: Application) throws(EngineError) {
        let repository = app.repository
        let started = ContinuousClock.now
        let head = try repository.head(base)
        let step = ViewStep.baseStep(of: head)
        let current: ViewBase
        /// How the base changed since the indexes last read it; `nil` when it did not.
        var diff: ListDiff?
        let baseMoved = lastStep != step
        if let lastBase, !baseMoved {
            current = lastBase
        } else {
            let document = try Self.document(of: base, at: head, hint: hint, repository: repository)
            current = ViewBase(document)
            if let lastBase {
                if let hint, let document, let previous = lastBase.document, hint.document.revision == document.revision,
                    hint.previous.revision == previous.revision
                {
                    diff = hint.diff
                } else {
                    // Diffed once here for every view, rather than by each view's index.
                    diff = ListDiff(from: lastBase.document ?? .empty(id: base), to: document ?? .empty(id: base))
                }
            }
        }
        let limits = repository.documentLimits
        let read = ContinuousClock.now
        var kept: [String: TrackedView] = [:]
        var unchanged: [ViewAdvance] = []
        var toWrite: [String] = []
        for view in views {
            var changed = true
            var index: ViewIndex
            var synced: Int?
            // Taken out of `tracked`, so the index is updated in place: still shared with it, its chunks would be
            // copied on every change.
            if var known = tracked.removeValue(forKey: view.list), known.generation == view.generation, !baseMoved || diff != nil {
                if let diff { changed = known.index.update(to: current, diff: diff) } else { changed = false }
                index = known.index
                synced = known.syncedRevision
            } else {
                let definition: ViewDefinition
                do {
                    // Read without the definition limits: they were checked when it was written (perhaps by a
                    // release with other limits), and a stored view must go on being kept.
                    definition = try ViewDefinition(
                        json: JSONValue(stored: view.definition), viewID: view.list, limits: limits, definitionLimits: .unlimited)
                } catch {
                    app.logger.warning(
                        "a view's stored definition cannot be read; it is not updated", metadata: ["view": "\(view.list)", "error": "\(error)"])
                    continue
                }
                index = ViewIndex(definition: definition, base: current, limits: limits)
            }
            let viewStep = ViewStep(generation: view.generation, baseStep: step)
            kept[view.list] = TrackedView(generation: view.generation, index: index, syncedRevision: changed ? nil : synced)
            if view.baseStep < step {
                if !changed, let synced {
                    unchanged.append(ViewAdvance(list: view.list, step: viewStep, atRevision: synced))
                } else {
                    toWrite.append(view.list)
                }
            }
        }
        let indexed = ContinuousClock.now
        // The views this revision left as they were record their step together, in one transaction; those whose
        // list moved meanwhile (another instance wrote them) are compared and written like the changed ones.
        if !unchanged.isEmpty {
            let advanced = Self.advance(unchanged, app: app)
            for (advance, done) in zip(unchanged, advanced) where !done { toWrite.append(advance.list) }
        }
        let advanced = ContinuousClock.now
        for list in toWrite {
            guard var view = kept[list] else { continue }
            view.syncedRevision = Self.bring(
                list, of: base, to: ViewStep(generation: view.generation, baseStep: step), index: view.index, app: app)
            kept[list] = view
        }
        tracked = kept
        lastBase = current
        lastStep = step
        if !toWrite.isEmpty, let document = current.document { repository.keepCached(document) }
        let finished = ContinuousClock.now
        app.logger.debug("views updated", metadata: [
            "base": "\(base)", "views": "\(views.count)", "unchanged": "\(unchanged.count)", "written": "\(toWrite.count)",
            "read": "\(read - started)", "indexes": "\(indexed - read)", "advances": "\(advanced - indexed)", "writes": "\(finished - advanced)",
        ])
        Timer(label: "listdelta_view_update_seconds").record(duration: finished - started)
    }

    /// The base's document at `head` (`nil` when the base is absent or deleted): the write's own when `hint` made
    /// that revision (no cache lookup that may rebuild it), else the repository's.
    static func document(of base: String, at head: ListHead?, hint: WriteOutcome?, repository: ListRepository) throws(EngineError) -> ListDocument? {
        guard let live = head, !live.isDeleted else { return nil }
        if let hint, hint.document.id == base, hint.document.revision == live.revision { return hint.document }
        return try repository.document(base, revision: live.revision, head: live)
    }

    /// Makes the view's list hold `index`'s document, recorded as computed at `step`: a revision when its content
    /// changes, else only the record of the step (no revision). Races with other instances are settled by the
    /// store's guard; a superseded update (another instance got further, or the view changed) does nothing.
    /// - Returns: The revision of the view's list that holds `index`'s document at `step` because of this call, or
    ///   `nil` when the update was superseded or failed.
    @discardableResult
    static func bring(_ list: String, of base: String, to step: ViewStep, index: ViewIndex, app: Application) -> Int? {
        let outcome: String
        defer { Counter(label: "listdelta_view_updates_total", dimensions: [("outcome", outcome)]).increment() }
        do throws(EngineError) {
            let written: WriteOutcome
            do {
                written = try app.repository.write(
                    list, origin: .view(of: base, revision: ViewStep.basedOn(step.baseStep)), preconditions: WritePreconditions(),
                    viewStep: step, onCommit: app.afterCommit
                ) { (_, revision) throws(EngineError) in index.document(viewID: list, revision: revision) }
            } catch {
                switch error {
                case .refused(let refusal), .engine(let refusal): throw refusal
                }
            }
            if written.changed {
                app.viewRegistry.record(list, step: step)
            } else if try !advance(list, to: step, atRevision: written.document.revision, app: app) {
                outcome = "superseded"
                return nil
            }
            outcome = written.changed ? "written" : "unchanged"
            return written.document.revision
        } catch .superseded {
            outcome = "superseded"
        } catch {
            outcome = "failed"
            app.logger.warning("a view could not be updated", metadata: ["view": "\(list)", "base": "\(base)", "error": "\(error)"])
        }
        return nil
    }

    /// Records the steps of views whose content did not change, in one transaction; `false` for each that was not
    /// recorded (or all, when the store failed).
    private static func advance(_ advances: [ViewAdvance], app: Application) -> [Bool] {
        let done: [Bool]
        do {
            done = try app.viewStore.advanceViews(advances)
        } catch {
            app.logger.warning("views' steps could not be recorded", metadata: ["views": "\(advances.count)", "error": "\(error)"])
            return advances.map { _ in false }
        }
        for (advance, recorded) in zip(advances, done) where recorded {
            app.viewRegistry.record(advance.list, step: advance.step)
            Counter(label: "listdelta_view_updates_total", dimensions: [("outcome", "unchanged")]).increment()
        }
        return done
    }

    /// Records that the view's unchanged content at `revision` is the query at `step`.
    private static func advance(_ list: String, to step: ViewStep, atRevision revision: Int, app: Application) throws(EngineError) -> Bool {
        let advanced: Bool
        do {
            advanced = try app.viewStore.advanceView(list: list, step: step, atRevision: revision)
        } catch {
            throw EngineError.from(error)
        }
        if advanced { app.viewRegistry.record(list, step: step) }
        return advanced
    }
}
