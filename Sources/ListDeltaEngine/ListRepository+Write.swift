import Foundation
import Tracing
public import ListDeltaCore
public import ListDeltaStorage

extension ListRepository {
    // MARK: - Writing

    /// Writes the next revision of `id`: `build` turns the current document (nil when absent) into the new one.
    ///
    /// Checks the preconditions, makes no revision when nothing changed, commits (durably) before returning;
    /// `onCommit` runs after the commit, still under the list's lock, so watchers see revisions in order.
    /// - Parameter mustExist: Whether a missing list is 404 before any precondition is evaluated (a PATCH: RFC 9110
    ///   §13.2.1 evaluates preconditions only where the answer without them would not be an error).
    /// - Parameter origin: The write that makes the revision, recorded in its history.
    /// - Parameter viewStep: For a view's update, the step of its base it was computed from: the store commits it
    ///   only while it moves the view forward (``RevisionWrite/viewStep``), else this throws
    ///   ``EngineError/superseded(_:)``.
    /// - Parameter answer: For a write sent with an `Idempotency-Key`, the answer to keep with the revision it makes
    ///   (in the store's transaction, ``RevisionWrite/answer``), made from the outcome before it commits; not called
    ///   when the write makes no revision.
    /// - Parameter build: Makes the new document from the current one and the next revision's number, under the
    ///   list's lock; what it throws comes back as ``WriteFailure/refused(_:)`` and nothing is written.
    /// - Throws: ``WriteFailure/refused(_:)`` with what `build` threw, ``WriteFailure/engine(_:)`` for the rest.
    public func write<Refusal: Error>(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool = false, viewStep: ViewStep? = nil,
        answer: ((WriteOutcome) -> AnswerToKeep)? = nil,
        onCommit: (WriteOutcome) -> Void, build: (ListDocument?, Int) throws(Refusal) -> ListDocument
    ) throws(WriteFailure<Refusal>) -> WriteOutcome {
        loopCheck.refuse("a write")
        return try Spans.with("listdelta.write") { (span) throws(WriteFailure<Refusal>) -> WriteOutcome in
            if span.isRecording { span.attributes["listdelta.list.id"] = id }
            let asked = ContinuousClock.now
            let outcome = try writeLocked(
                id, origin: origin, preconditions: preconditions, mustExist: mustExist, viewStep: viewStep, answer: answer,
                onCommit: onCommit, build: build, waited: { if span.isRecording { span.attributes["listdelta.lock.wait_ms"] = Spans.milliseconds(since: asked) } })
            if span.isRecording {
                span.attributes["listdelta.revision"] = outcome.document.revision
                span.attributes["listdelta.diff.size"] = outcome.diff.operationCount
                span.attributes["listdelta.changed"] = outcome.changed
            }
            return outcome
        }
    }

    private func writeLocked<Refusal: Error>(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool, viewStep: ViewStep?,
        answer: ((WriteOutcome) -> AnswerToKeep)?, onCommit: (WriteOutcome) -> Void,
        build: (ListDocument?, Int) throws(Refusal) -> ListDocument, waited: () -> Void
    ) throws(WriteFailure<Refusal>) -> WriteOutcome {
        return try locks.withLock(id) { () throws(WriteFailure<Refusal>) in
            waited()
            // Only a write through another instance can come between reading the head and committing (this
            // instance's writers of the list wait for its lock); an unconditional write that lost that race is
            // built again on the winner, after a short random pause that breaks the lockstep of instances
            // writing one list as fast as they can.
            for attempt in 1...Self.racesBeforeTurn {
                if let outcome = try writeHoldingLock(
                    id, origin: origin, preconditions: preconditions, mustExist: mustExist, viewStep: viewStep, answer: answer, onCommit: onCommit, build: build,
                    lastAttempt: false)
                {
                    return outcome
                }
                usleep(UInt32.random(in: 0...UInt32(attempt * 1_000)))
            }
            // Lost every time: another instance commits faster than this one reads and builds (it knows the head
            // and has the document), and would go on winning for as long as its clients write. The last attempt
            // holds the store's turn on the list, so that no one commits between its read and its commit.
            let turn: (any WriteTurn)?
            do throws(StoreError) {
                turn = try store.takeWriteTurn(id)
            } catch {
                throw .engine(.from(error))
            }
            defer { turn?.end() }
            if turn != nil { heads.forget(id) }
            guard let outcome = try writeHoldingLock(
                id, origin: origin, preconditions: preconditions, mustExist: mustExist, viewStep: viewStep, answer: answer, onCommit: onCommit, build: build,
                lastAttempt: true)
            else { throw .engine(.storage("a write of \(id) lost its race \(Self.racesBeforeTurn + 1) times")) }
            return outcome
        }
    }

    /// Runs `body` while no write of `id` is under way on this instance (under the list's write lock): what a
    /// write here committed to the store is then published here too (its head and document are the
    /// repository's). A view's definition is read so, so that its `basedOn` never names a base revision whose view
    /// revision this instance does not serve yet.
    public func withoutWritesUnderWay<Result, Failure: Error>(_ id: String, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        loopCheck.refuse("waiting for a list's writes")
        return try locks.withLock(id, body)
    }

    /// How many times an unconditional write is built when other instances keep winning the race for its list,
    /// before it takes the store's turn on it (``RevisionStore/takeWriteTurn(_:)``).
    static let racesBeforeTurn = 3

    /// The 412 of an `If-Match` none of whose revisions is `current`, or nil when it holds (or is absent).
    static func failedIfMatch(_ preconditions: WritePreconditions, current: Int?) -> EngineError? {
        guard let expected = preconditions.ifMatch, !(current.map(expected.contains) ?? false) else { return nil }
        let named = expected.isEmpty ? "names no strong entity tag that" : "\(expected.map { "\"\($0)\"" }.joined(separator: ", ")) does not"
        return .preconditionFailed(
            current: current, detail: "If-Match \(named) match the current revision \(current.map { "\"\($0)\"" } ?? "(no list)")")
    }

    /// One attempt at a write; `nil` when it lost a race to another instance and may be tried again.
    func writeHoldingLock<Refusal: Error>(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool, viewStep: ViewStep?,
        answer: ((WriteOutcome) -> AnswerToKeep)?, onCommit: (WriteOutcome) -> Void,
        build: (ListDocument?, Int) throws(Refusal) -> ListDocument, lastAttempt: Bool
    ) throws(WriteFailure<Refusal>) -> WriteOutcome? {
        let base: WriteBase
        do {
            base = try writeBase(id, preconditions: preconditions, mustExist: mustExist)
        } catch {
            throw .engine(error)
        }
        let next: ListDocument
        do {
            next = try build(base.previous, base.nextRevision)
        } catch {
            throw .refused(error)
        }
        do {
            return try commit(
                next, on: base, origin: origin, preconditions: preconditions, viewStep: viewStep, answer: answer, onCommit: onCommit,
                lastAttempt: lastAttempt)
        } catch {
            throw .engine(error)
        }
    }

    /// What a write builds on: the list's head as the store has it and its current document.
    struct WriteBase {
        let id: String
        /// When the head was read, for the head cache.
        let headGeneration: Int
        /// The live head (nil when the list does not exist or was deleted).
        let live: ListHead?
        let previous: ListDocument?
        let nextRevision: Int
    }

    /// Reads the head and the current document and checks the preconditions on them.
    ///
    /// The head is the cached one when the cache holds it. On a shared store another instance may have committed
    /// since (its announcement not received yet): a write built on that stale head is refused by the store like a
    /// lost race, and a precondition that fails on it is checked again on the store's own head before it is
    /// reported, so a client is never refused for a revision this instance had not heard of.
    func writeBase(_ id: String, preconditions: WritePreconditions, mustExist: Bool) throws(EngineError) -> WriteBase {
        let headGeneration = heads.generation
        let head = try self.head(id)
        do {
            return try writeBase(id, head: head, generation: headGeneration, preconditions: preconditions, mustExist: mustExist)
        } catch where store.isShared {
            let generation = heads.generation
            return try writeBase(id, head: try storedHead(id), generation: generation, preconditions: preconditions, mustExist: mustExist)
        }
    }

    private func writeBase(
        _ id: String, head: ListHead?, generation: Int, preconditions: WritePreconditions, mustExist: Bool
    ) throws(EngineError) -> WriteBase {
        let live = head.flatMap { $0.isDeleted ? nil : $0 }
        if mustExist, live == nil { throw .notFound("there is no list \"\(id)\"") }
        if let failure = Self.failedIfMatch(preconditions, current: live?.revision) { throw failure }
        if preconditions.ifMatchAny, live == nil {
            throw .preconditionFailed(current: nil, detail: "If-Match: * needs an existing list")
        }
        if preconditions.createOnly, let live {
            throw .preconditionFailed(current: live.revision, detail: "If-None-Match: * but the list exists at revision \(live.revision)")
        }
        let previous = try live.map { (head) throws(EngineError) in try document(id, revision: head.revision, head: head) }
        return WriteBase(id: id, headGeneration: generation, live: live, previous: previous, nextRevision: (head?.revision ?? 0) + 1)
    }

    /// Commits `next` on `base` (unless it changes nothing); `nil` when it lost a race to another instance.
    func commit(
        _ next: ListDocument, on writeBase: WriteBase, origin: RevisionOrigin, preconditions: WritePreconditions, viewStep: ViewStep? = nil,
        answer: ((WriteOutcome) -> AnswerToKeep)? = nil, onCommit: (WriteOutcome) -> Void, lastAttempt: Bool
    ) throws(EngineError) -> WriteOutcome? {
        let id = writeBase.id
        let (live, previous, nextRevision) = (writeBase.live, writeBase.previous, writeBase.nextRevision)
        let maximumBytes = documentLimits.maximumDocumentBytes
        guard next.compactJSONLength(upTo: maximumBytes) != nil else {
            throw .tooLarge("the document would be larger than \(maximumBytes) bytes of JSON, the most a list may hold")
        }
        let base = previous ?? .empty(id: id)
        let diff = ListDiff(from: base, to: next)
        // The diff replays every change of the sections (the stored deltas rely on it), so an empty one with the
        // same kind and registry is the same content: no second pass over the items to compare them.
        if let previous, diff.isEmpty, previous.kind == next.kind, previous.cells == next.cells {
            let empty = ListDiff(listID: id, from: previous.revision, to: previous.revision, fromCounts: previous.sectionCounts, toCounts: previous.sectionCounts)
            return WriteOutcome(document: previous, diff: empty, renderedDiff: RenderedBody(empty.jsonValue), previous: previous, created: false, changed: false)
        }
        // Rendered and compressed once: the stored delta, the diff cache, the watchers and the response share it.
        let rendered = RenderedBody(diff.jsonValue)
        let delta = previous == nil ? nil : RevisionCodec.delta(rendered, to: next)
        var snapshot: [UInt8]?
        if let live, let delta {
            if live.deltaBytesSinceCheckpoint + delta.count > max(live.checkpointBytes, 4_096) {
                snapshot = RevisionCodec.snapshot(of: next)
            }
        } else {
            snapshot = RevisionCodec.snapshot(of: next)
        }
        var outcome = WriteOutcome(document: next, diff: diff, renderedDiff: rendered, previous: base, created: previous == nil, changed: true)
        let trace = CommitTracing.current()
        outcome.trace = trace
        let write = RevisionWrite(
            listID: id, expectedRevision: live?.revision, kind: next.kind.rawValue, sectionCount: next.sections.count,
            itemCount: next.itemCount, delta: delta, snapshot: snapshot, summary: Self.summary(of: diff, origin: origin),
            undo: try previous.map { (previous) throws(EngineError) in try Self.undo(of: diff, from: previous) }, viewStep: viewStep,
            answer: answer?(outcome), trace: trace)
        // Known before it commits, so that no reader is told it does not exist once it does.
        ids?.insert(id)
        let newHead: ListHead
        do {
            newHead = try CommitTracing.storeCall("append", list: id, system: store.databaseSystem) { () throws(StoreError) in
                try store.append(write)
            }
        } catch .conflict(let current) where store.isShared {
            // Another instance committed first: the cached head is stale, and the next attempt reads the store's.
            heads.forget(id)
            if preconditions.retriesAfterRace && !lastAttempt { return nil }
            throw EngineError.from(.conflict(current: current))
        } catch {
            throw EngineError.from(error)
        }
        guard newHead.revision == nextRevision else {
            throw .storage("the store numbered revision \(newHead.revision), expected \(nextRevision)")
        }
        heads.remember(newHead, readIn: writeBase.headGeneration)
        remember(next, itemsHeldElsewhere: viewStep != nil)
        onCommit(outcome)
        return outcome
    }

    /// What the history shows about the revision `diff` leads to, committed now.
    static func summary(of diff: ListDiff, origin: RevisionOrigin) -> RevisionSummary {
        RevisionSummary(
            committedAtMilliseconds: Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down)), origin: origin,
            sectionCount: diff.toCounts.count, itemCount: diff.toCounts.reduce(0, +),
            sectionChanges: OperationCounts(
                deleted: diff.sections.deleted.count, inserted: diff.sections.inserted.count,
                moved: diff.sections.moved.count, updated: diff.sections.updated.count),
            itemChanges: OperationCounts(
                deleted: diff.items.deleted.count, inserted: diff.items.inserted.count,
                moved: diff.items.moved.count, updated: diff.items.updated.count))
    }

    /// The stored diff that leads from the new revision back to `previous`: built from the write's diff and
    /// the items it replaced, in O(*k* log *k*), with `previous`'s kind and registry.
    static func undo(of diff: ListDiff, from previous: ListDocument) throws(EngineError) -> [UInt8] {
        do {
            return RevisionCodec.delta(RenderedBody(try diff.inverted(from: previous).jsonValue), to: previous)
        } catch {
            throw .storage("the write's diff does not invert: \(error)")
        }
    }
}
