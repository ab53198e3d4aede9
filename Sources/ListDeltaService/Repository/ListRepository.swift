import Foundation
import HTTPServer
import ListDeltaCore
import ListDeltaStore
import ZlibCodec

/// The lists: their revisions in the store, the hot ones in memory, writes serialised per list.
///
/// Reads of a current document touch memory only; an older revision is rebuilt from the nearest checkpoint (or
/// the nearest revision still in memory) by replaying deltas. Writes to one list are serialised by that list's
/// own lock (writes to other lists never wait for it), so of racing writers with the same `If-Match` exactly one
/// wins; a write is acknowledged only after the store committed it.
///
/// With a store other instances write to (``RevisionStore/isShared``), cached heads may lag behind the store:
/// they are corrected by announcements (``announce(_:revision:deleted:)``, from the store's notifications), a read
/// that names a revision newer than the cached head goes to the store (`atLeast`), and a write reads the head from
/// the store; the store itself decides which of racing writers wins.
///
/// Threading: the methods that may read the store (``head(_:)``, ``live(_:)``, ``document(_:revision:head:)``,
/// ``lists(after:limit:)``, ``write(_:preconditions:onCommit:build:)``, ``delete(_:preconditions:onCommit:)``)
/// run on workers, never on an event loop (asserted in debug builds). ``cachedHead(_:)``,
/// ``cachedDocument(_:revision:)`` and ``mightExist(_:)`` touch memory only and are what the loops use.
final class ListRepository: Sendable {
    private let store: any RevisionStore
    private let factory: DataProviderFactory
    private let documents: LRUCache<RevisionKey, ListDocument>
    /// Undo diffs read back, by the revision they undo: a revision never changes, and clients catching up on a
    /// busy list walk the same recent ones again and again.
    private let undoDiffs: LRUCache<RevisionKey, RevisionCodec.Delta>
    /// The heads of recently used lists, live or deleted (bounded by count; the store is the truth).
    private let heads: HeadCache
    /// The ids that may exist; `nil` when every lookup goes to the store.
    private let ids: ListIDFilter?
    private let locks = KeyedLocks<String>()
    /// How revisions not in memory were rebuilt.
    let rebuilds = RebuildStatistics()

    /// The filter of existing ids, which lets reads of unknown ids be answered without the store, is loaded here
    /// for a store no other process writes.
    /// - Parameters:
    ///   - cacheBytes: Memory for rebuilt documents, and an eighth more for undo diffs read back.
    ///   - cachedHeads: How many list heads are kept in memory.
    /// - Throws: `ServiceError.storage` when the ids cannot be read.
    init(store: any RevisionStore, limits: DocumentLimits, cacheBytes: Int, cachedHeads: Int = 100_000) throws(ServiceError) {
        self.store = store
        self.factory = DataProviderFactory(limits: limits)
        self.documents = LRUCache(budget: cacheBytes)
        self.undoDiffs = LRUCache(budget: cacheBytes / 8)
        self.heads = HeadCache(capacity: cachedHeads)
        guard !store.isShared else {
            // Until the store's announcements are received (the first `resumed`), a cached head could miss a
            // commit made elsewhere: nothing is cached before.
            heads.suspend()
            ids = nil
            return
        }
        var existing: [String] = []
        var after: String?
        do {
            while true {
                let page = try store.lists(after: after, limit: 1_000)
                existing += page.map(\.id)
                guard page.count == 1_000, let last = page.last else { break }
                after = last.id
            }
        } catch {
            throw ServiceError.from(error)
        }
        let filter = ListIDFilter(capacity: max(1 << 20, existing.count * 2))
        for id in existing { filter.insert(id) }
        ids = filter
    }

    // MARK: - Reading from memory (any thread, the loops included)

    /// `false` when no list `id` exists for certain (answered without the store).
    func mightExist(_ id: String) -> Bool { ids?.mightContain(id) ?? true }

    /// The head of `id` when it is in memory (and no announcement made it stale).
    func cachedHead(_ id: String) -> ListHead? { heads.head(id) }

    /// Whether other instances write to the store.
    var isShared: Bool { store.isShared }

    /// Records that another instance committed `revision` of `id` (or deleted it): the next read of its head goes
    /// to the store unless a head at least that new is cached. Returns whether a cached head was stale.
    @discardableResult
    func announce(_ id: String, revision: Int, deleted: Bool) -> Bool {
        heads.announce(id, revision: revision, deleted: deleted)
    }

    /// Stops trusting cached heads while announcements cannot be received (every head read goes to the store).
    func suspendHeadCache() { heads.suspend() }

    /// Trusts cached heads again, starting from none: announcements are received again.
    func resumeHeadCache() { heads.resume() }

    /// The document at `revision` when it is in memory.
    func cachedDocument(_ id: String, revision: Int) -> ListDocument? {
        documents.value(for: RevisionKey(list: id, revision: revision))
    }

    /// Lists and revisions held in memory, for metrics.
    var cacheUsage: (heads: Int, documents: Int, documentBytes: Int) {
        let documents = documents.usage
        return (heads.count, documents.count, documents.cost)
    }

    /// The limits every written document is checked against.
    var documentLimits: DocumentLimits { factory.limits }

    /// The validated document the JSON text of a write describes, read straight into items when the factory's
    /// fast reader takes it; `nil` otherwise (parse it, then call `makeDocument(from:listID:revision:)`).
    func readDocument(json body: [UInt8], listID: String, revision: Int, maximumDepth: Int) -> ListDocument? {
        factory.readDocument(json: body, listID: listID, revision: revision, maximumDepth: maximumDepth)
    }

    /// The validated document a write body describes.
    func makeDocument(from body: JSONValue, listID: String, revision: Int) throws(ServiceError) -> ListDocument {
        do {
            return try factory.makeDocument(from: body, listID: listID, revision: revision)
        } catch {
            throw .unprocessable(error)
        }
    }

    // MARK: - Reading

    /// The head of a list, live or deleted, or `nil` when the id was never used.
    /// - Parameter known: A revision the caller knows exists (a client holds it). A shared store may hold newer
    ///   heads than the cache: a cached head older than `known` is read again from the store, so a revision
    ///   committed through another instance is never answered as unknown.
    func head(_ id: String, atLeast known: Int? = nil) throws(ServiceError) -> ListHead? {
        if let cached = heads.head(id), !store.isShared || cached.revision >= (known ?? 0) { return cached }
        guard mightExist(id) else { return nil }
        return try storedHead(id)
    }

    /// The head as the store has it now (cached unless something newer is known).
    private func storedHead(_ id: String) throws(ServiceError) -> ListHead? {
        EventLoopThread.assertNotOnLoop("reading a list head from the store")
        let generation = heads.generation
        let loaded: ListHead?
        do {
            loaded = try store.head(id)
        } catch {
            throw ServiceError.from(error)
        }
        if let loaded { heads.remember(loaded, readIn: generation) }
        return loaded
    }

    /// The live list `id`, or 404 (`known` as in ``head(_:atLeast:)``).
    func live(_ id: String, atLeast known: Int? = nil) throws(ServiceError) -> LiveList {
        guard let head = try head(id, atLeast: known), !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
        return LiveList(head: head, document: try document(id, revision: head.revision, head: head))
    }

    /// `true` when `revision` can be served: 0 (the empty list) or a retained revision.
    func isServable(_ revision: Int, head: ListHead) -> Bool {
        revision == 0 || (head.oldestRevision...head.revision).contains(revision)
    }

    /// The 410 for a revision `isServable` refuses: beyond the current one, or no longer retained.
    func notServed(_ revision: Int, head: ListHead) -> ServiceError {
        let reason = revision > head.revision ? "is not a revision of \"\(head.id)\"" : "is no longer retained (the oldest is \(head.oldestRevision))"
        return .gone(current: head.revision, detail: "revision \(revision) \(reason)")
    }

    /// The document at `revision` (0 is the empty list), or 410 when it is not retained.
    /// - Complexity: O(1) when in memory; else O(*n* · *d*) for *d* deltas replayed on *n* items.
    func document(_ id: String, revision: Int, head: ListHead) throws(ServiceError) -> ListDocument {
        if revision == 0 { return .empty(id: id) }
        guard isServable(revision, head: head) else {
            throw .gone(current: head.revision, detail: "revision \(revision) of \"\(id)\" is not retained; the oldest is \(head.oldestRevision)")
        }
        if let cached = documents.value(for: RevisionKey(list: id, revision: revision)) { return cached }
        EventLoopThread.assertNotOnLoop("rebuilding a revision")
        do {
            if let rebuilt = try rebuildBackwards(id, revision: revision, head: head) { return rebuilt }
            let rebuilt = try rebuildForwards(id, revision: revision, head: head)
            remember(rebuilt)
            return rebuilt
        } catch let error as RevisionCodec.CorruptRevision {
            throw .storage(error.description)
        } catch let error as DiffApplicationError {
            throw .storage("a stored revision of \(id) does not replay: \(error)")
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    /// An older revision, walked back from the current document in memory through the stored undo diffs:
    /// its cost grows with the distance walked, at the cost of what each revision changed, and never needs a
    /// checkpoint. `nil` when the current document is not in memory or a revision on the way has no undo diff
    /// (written before they were kept).
    ///
    /// The result is not cached: it shares its items with the current document, which the cache would charge
    /// twice, and walking back again is cheap. Its renderings (a document body, a diff) are cached.
    /// - Complexity: O(*n* + *d* · *k* · √*n*) for *d* revisions of *k* operations on *n* items.
    private func rebuildBackwards(_ id: String, revision: Int, head: ListHead) throws -> ListDocument? {
        guard revision < head.revision, let current = documents.value(for: RevisionKey(list: id, revision: head.revision)) else {
            return nil
        }
        guard let chain = try store.undoChain(id, from: head.revision, downTo: revision), chain.allSatisfy({ $0.undo != nil }) else {
            return nil
        }
        var replayer = DiffReplayer(current)
        let inflater = GzipInflater()
        for row in chain {
            let key = RevisionKey(list: id, revision: row.revision)
            if let undo = undoDiffs.value(for: key) {
                try undo.replay(on: &replayer)
                continue
            }
            let undo = try RevisionCodec.read(delta: row.undo!, inflater: inflater)
            undoDiffs.set(undo, for: key, cost: undo.estimatedHeapBytes)
            try undo.replay(on: &replayer)
        }
        guard replayer.revision == revision else {
            throw ServiceError.storage("walking \(id) back from \(head.revision) reached \(replayer.revision), not \(revision)")
        }
        rebuilds.record(.backwards, diffs: chain.count)
        return replayer.document
    }

    /// A revision rebuilt forwards from the nearest revision of its chain in memory, else from its checkpoint.
    /// - Complexity: O(*n* + *d* · *k* · √*n*) for *d* deltas of *k* operations on *n* items, plus reading the
    ///   checkpoint when no revision of the chain is in memory.
    private func rebuildForwards(_ id: String, revision: Int, head: ListHead) throws -> ListDocument {
        let chain: [StoredRevision]?
        do {
            chain = try store.chain(id, upTo: revision)
        } catch {
            throw ServiceError.from(error)
        }
        guard let chain, let first = chain.first else {
            throw ServiceError.gone(current: head.revision, detail: "revision \(revision) of \"\(id)\" is not retained")
        }
        // Start from the newest revision of the chain that is still in memory, else from the checkpoint.
        var startIndex = 0
        var start: ListDocument?
        for index in stride(from: chain.count - 1, through: 1, by: -1) {
            if let cached = documents.value(for: RevisionKey(list: id, revision: chain[index].revision)) {
                start = cached
                startIndex = index
                break
            }
        }
        if start == nil {
            guard let snapshot = first.snapshot else { throw ServiceError.storage("revision \(first.revision) of \(id) has no checkpoint") }
            start = try RevisionCodec.document(fromSnapshot: snapshot)
        }
        rebuilds.record(startIndex == 0 ? .checkpoint : .memory, diffs: chain.count - 1 - startIndex)
        guard startIndex + 1 < chain.count else { return start! }
        var replayer = DiffReplayer(start!)
        let inflater = GzipInflater()
        for row in chain[(startIndex + 1)...] {
            guard let blob = row.delta else { throw ServiceError.storage("revision \(row.revision) of \(id) has no delta") }
            try RevisionCodec.replay(blob, on: &replayer, inflater: inflater)
        }
        var rebuilt = replayer.document
        rebuilt.revision = revision
        return rebuilt
    }

    /// A page of the history of the live list `id` (404 when there is none), from stored summaries only.
    func history(_ id: String, before: Int?, limit: Int) throws(ServiceError) -> HistoryPage {
        guard mightExist(id) else { throw .notFound("there is no list \"\(id)\"") }
        EventLoopThread.assertNotOnLoop("reading a history")
        let page: HistoryPage?
        do {
            page = try store.history(id, before: before, limit: limit)
        } catch {
            throw ServiceError.from(error)
        }
        guard let page else { throw .notFound("there is no list \"\(id)\"") }
        return page
    }

    /// Live lists in id order, after `after`, at most `limit`, and whether more follow.
    func lists(after: String?, limit: Int) throws(ServiceError) -> (lists: [ListHead], more: Bool) {
        EventLoopThread.assertNotOnLoop("listing lists")
        do {
            let page = try store.lists(after: after, limit: limit + 1)
            return (Array(page.prefix(limit)), page.count > limit)
        } catch {
            throw ServiceError.from(error)
        }
    }

    private func remember(_ document: ListDocument) {
        // What the document holds on the heap, so the cache's budget bounds memory; plus an eighth for the
        // allocator's holes between its blocks (`listdelta-bench memory` finds the process growing by 1.1 to 1.2
        // times the estimate).
        let cost = RenderedBody.entryBytes + document.estimatedHeapBytes * 9 / 8
        documents.set(document, for: RevisionKey(list: document.id, revision: document.revision), cost: cost)
    }

    // MARK: - Writing

    /// Writes the next revision of `id`: `build` turns the current document (nil when absent) into the new one.
    ///
    /// Checks the preconditions, makes no revision when nothing changed, commits (durably) before returning;
    /// `onCommit` runs after the commit, still under the list's lock, so watchers see revisions in order.
    /// - Parameter mustExist: Whether a missing list is 404 before any precondition is evaluated (a PATCH: RFC 9110
    ///   §13.2.1 evaluates preconditions only where the answer without them would not be an error).
    /// - Parameter origin: The write that makes the revision, recorded in its history.
    func write(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool = false,
        onCommit: (WriteOutcome) -> Void, build: (ListDocument?, Int) throws(ServiceError) -> ListDocument
    ) throws(ServiceError) -> WriteOutcome {
        EventLoopThread.assertNotOnLoop("a write")
        return try locks.withLock(id) { () throws(ServiceError) in
            // Only a write through another instance can come between reading the head and committing (this
            // instance's writers of the list wait for its lock); an unconditional write that lost that race is
            // built again on the winner, after a short random pause that breaks the lockstep of instances
            // writing one list as fast as they can, a bounded number of times.
            for attempt in 1..<Self.raceAttempts {
                if let outcome = try writeHoldingLock(
                    id, origin: origin, preconditions: preconditions, mustExist: mustExist, onCommit: onCommit, build: build, lastAttempt: false)
                {
                    return outcome
                }
                usleep(UInt32.random(in: 0...UInt32(min(attempt, 8) * 2_000)))
            }
            // The last attempt reports a lost race as the 412 it is.
            guard let outcome = try writeHoldingLock(
                id, origin: origin, preconditions: preconditions, mustExist: mustExist, onCommit: onCommit, build: build, lastAttempt: true)
            else { throw .storage("a write of \(id) lost its race \(Self.raceAttempts) times") }
            return outcome
        }
    }

    /// How many times an unconditional write is built when other instances keep winning the race for its list
    /// (`Tests/e2e/test_scale_out.py` saw 16 lost in a row while PostgreSQL came back under load).
    private static let raceAttempts = 64

    /// The 412 of an `If-Match` none of whose revisions is `current`, or nil when it holds (or is absent).
    private static func failedIfMatch(_ preconditions: WritePreconditions, current: Int?) -> ServiceError? {
        guard let expected = preconditions.ifMatch, !(current.map(expected.contains) ?? false) else { return nil }
        let named = expected.isEmpty ? "names no strong entity tag that" : "\(expected.map { "\"\($0)\"" }.joined(separator: ", ")) does not"
        return .preconditionFailed(
            current: current, detail: "If-Match \(named) match the current revision \(current.map { "\"\($0)\"" } ?? "(no list)")")
    }

    /// One attempt at a write; `nil` when it lost a race to another instance and may be tried again.
    private func writeHoldingLock(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool, onCommit: (WriteOutcome) -> Void,
        build: (ListDocument?, Int) throws(ServiceError) -> ListDocument, lastAttempt: Bool
    ) throws(ServiceError) -> WriteOutcome? {
        // Another instance may have written since the head was cached: a shared store's write starts from its head.
        let headGeneration = heads.generation
        let head = store.isShared ? try storedHead(id) : try self.head(id)
        let live = head.flatMap { $0.isDeleted ? nil : $0 }
        if mustExist, live == nil { throw .notFound("there is no list \"\(id)\"") }
        if let failure = Self.failedIfMatch(preconditions, current: live?.revision) { throw failure }
        if preconditions.ifMatchAny, live == nil {
            throw .preconditionFailed(current: nil, detail: "If-Match: * needs an existing list")
        }
        if preconditions.createOnly, let live {
            throw .preconditionFailed(current: live.revision, detail: "If-None-Match: * but the list exists at revision \(live.revision)")
        }
        let previous = try live.map { (head) throws(ServiceError) in try document(id, revision: head.revision, head: head) }
        let nextRevision = (head?.revision ?? 0) + 1
        let next = try build(previous, nextRevision)
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
        let write = RevisionWrite(
            listID: id, expectedRevision: live?.revision, kind: next.kind.rawValue, sectionCount: next.sections.count,
            itemCount: next.itemCount, delta: delta, snapshot: snapshot, summary: Self.summary(of: diff, origin: origin),
            undo: try previous.map { (previous) throws(ServiceError) in try Self.undo(of: diff, from: previous) })
        // Known before it commits, so that no reader is told it does not exist once it does.
        ids?.insert(id)
        let newHead: ListHead
        do {
            newHead = try store.append(write)
        } catch .conflict where store.isShared && preconditions.retriesAfterRace && !lastAttempt {
            return nil
        } catch {
            throw ServiceError.from(error)
        }
        guard newHead.revision == nextRevision else {
            throw .storage("the store numbered revision \(newHead.revision), expected \(nextRevision)")
        }
        heads.remember(newHead, readIn: headGeneration)
        remember(next)
        let outcome = WriteOutcome(document: next, diff: diff, renderedDiff: rendered, previous: base, created: previous == nil, changed: true)
        onCommit(outcome)
        return outcome
    }

    /// What the history shows about the revision `diff` leads to, committed now.
    private static func summary(of diff: ListDiff, origin: RevisionOrigin) -> RevisionSummary {
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
    private static func undo(of diff: ListDiff, from previous: ListDocument) throws(ServiceError) -> [UInt8] {
        do {
            return RevisionCodec.delta(RenderedBody(try diff.inverted(from: previous).jsonValue), to: previous)
        } catch {
            throw .storage("the write's diff does not invert: \(error)")
        }
    }

    /// Deletes `id`; returns its last head.
    func delete(_ id: String, preconditions: WritePreconditions, onCommit: () -> Void) throws(ServiceError) -> ListHead {
        EventLoopThread.assertNotOnLoop("a delete")
        return try locks.withLock(id) { () throws(ServiceError) in try deleteHoldingLock(id, preconditions: preconditions, onCommit: onCommit) }
    }

    private func deleteHoldingLock(_ id: String, preconditions: WritePreconditions, onCommit: () -> Void) throws(ServiceError) -> ListHead {
        let current = store.isShared ? try storedHead(id) : try head(id)
        guard let head = current, !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
        if let failure = Self.failedIfMatch(preconditions, current: head.revision) { throw failure }
        let removed: ListHead?
        do {
            // Under the list's lock: the revision just checked is still the current one (but for another
            // instance's write, which the store's own check catches).
            removed = try store.delete(id, expectedRevision: preconditions.ifMatch == nil ? nil : head.revision)
            let generation = heads.generation
            if let tombstone = try store.head(id) { heads.remember(tombstone, readIn: generation) } else { heads.forget(id) }
        } catch {
            throw ServiceError.from(error)
        }
        documents.removeAll { $0.list == id }
        undoDiffs.removeAll { $0.list == id }
        guard let removed else { throw .notFound("there is no list \"\(id)\"") }
        onCommit()
        return removed
    }
}
