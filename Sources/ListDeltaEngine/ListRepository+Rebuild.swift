public import ListDeltaCore
public import ListDeltaStorage
import ZlibCodec
import Tracing

extension ListRepository {
    /// The document at `revision` (0 is the empty list), or 410 when it is not retained.
    /// - Complexity: O(1) when in memory; else O(*n* · *d*) for *d* deltas replayed on *n* items.
    public func document(_ id: String, revision: Int, head: ListHead) throws(EngineError) -> ListDocument {
        loopCheck.refuse("reading a revision")
        if revision == 0 { return .empty(id: id) }
        guard isServable(revision, head: head) else {
            throw .gone(current: head.revision, detail: "revision \(revision) of \"\(id)\" is not retained; the oldest is \(head.oldestRevision)")
        }
        if let cached = documents.value(for: RevisionKey(list: id, revision: revision)) { return cached }
        return try Spans.with("listdelta.rebuild") { (span) throws(EngineError) -> ListDocument in
            if span.isRecording {
                span.attributes["listdelta.list.id"] = id
                span.attributes["listdelta.revision"] = revision
                span.attributes["listdelta.head.revision"] = head.revision
            }
            return try rebuild(id, revision: revision, head: head)
        }
    }

    /// ``document(_:revision:head:)`` for a revision that is not in memory.
    private func rebuild(_ id: String, revision: Int, head: ListHead) throws(EngineError) -> ListDocument {
        do {
            if let rebuilt = try rebuildBackwards(id, revision: revision, head: head) { return rebuilt }
            let rebuilt = try rebuildForwards(id, revision: revision, head: head)
            remember(rebuilt)
            return rebuilt
        } catch let error as RevisionCodec.CorruptRevision {
            throw .storage(error.description)
        } catch let error as DiffApplicationError {
            throw .storage("a stored revision of \(id) does not replay: \(error)")
        } catch let error as EngineError {
            throw error
        } catch let error as StoreError {
            throw EngineError.from(error)
        } catch {
            throw .storage("\(error)")
        }
    }

    /// An older revision, walked back from the current document in memory through the stored undo diffs:
    /// its cost grows with the distance walked, at the cost of what each revision changed, and never needs a
    /// checkpoint. `nil` when the current document is not in memory, a revision on the way has no undo diff
    /// (written before they were kept), or replaying forwards from the checkpoint reads fewer bytes
    /// (``RebuildPath/cheaper(for:)``, from the stored blobs' lengths).
    ///
    /// The result is not cached: it shares its items with the current document, which the cache would charge
    /// twice, and walking back again is cheap. Its renderings (a document body, a diff) are cached.
    /// - Complexity: O(*n* + *d* · *k* · √*n*) for *d* revisions of *k* operations on *n* items.
    func rebuildBackwards(_ id: String, revision: Int, head: ListHead) throws -> ListDocument? {
        guard revision < head.revision, let current = documents.value(for: RevisionKey(list: id, revision: head.revision)) else {
            return nil
        }
        guard let costs = try store.rebuildCosts(id, revision: revision, from: head.revision), RebuildPath.cheaper(for: costs) == .backwards
        else { return nil }
        let undoChain = try CommitTracing.storeCall("undo_chain", list: id, system: store.databaseSystem) { () throws(StoreError) in
            try store.undoChain(id, from: head.revision, downTo: revision)
        }
        guard let chain = undoChain, chain.allSatisfy({ $0.undo != nil }) else {
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
            throw EngineError.storage("walking \(id) back from \(head.revision) reached \(replayer.revision), not \(revision)")
        }
        rebuilds.record(.backwards, diffs: chain.count)
        return replayer.document
    }

    /// A revision rebuilt forwards from the nearest revision of its chain in memory, else from its checkpoint.
    /// - Complexity: O(*n* + *d* · *k* · √*n*) for *d* deltas of *k* operations on *n* items, plus reading the
    ///   checkpoint when no revision of the chain is in memory.
    func rebuildForwards(_ id: String, revision: Int, head: ListHead) throws -> ListDocument {
        let chain: [StoredRevision]?
        do {
            chain = try CommitTracing.storeCall("chain", list: id, system: store.databaseSystem) { () throws(StoreError) in
                try store.chain(id, upTo: revision)
            }
        } catch {
            throw EngineError.from(error)
        }
        guard let chain, let first = chain.first else {
            throw EngineError.gone(current: head.revision, detail: "revision \(revision) of \"\(id)\" is not retained")
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
            guard let snapshot = first.snapshot else { throw EngineError.storage("revision \(first.revision) of \(id) has no checkpoint") }
            start = try RevisionCodec.document(fromSnapshot: snapshot)
        }
        rebuilds.record(startIndex == 0 ? .checkpoint : .memory, diffs: chain.count - 1 - startIndex)
        guard startIndex + 1 < chain.count else { return start! }
        var replayer = DiffReplayer(start!)
        let inflater = GzipInflater()
        for row in chain[(startIndex + 1)...] {
            guard let blob = row.delta else { throw EngineError.storage("revision \(row.revision) of \(id) has no delta") }
            try RevisionCodec.replay(blob, on: &replayer, inflater: inflater)
        }
        var rebuilt = replayer.document
        rebuilt.revision = revision
        return rebuilt
    }

    /// Makes `document` (a revision of a list, held by the caller anyway) the most recently used in the cache, or
    /// caches it again: a view's updater, after it wrote a base's views, keeps the base's document from being the
    /// first evicted, so that the base's next write finds it in memory.
    public func keepCached(_ document: ListDocument) {
        if documents.value(for: RevisionKey(list: document.id, revision: document.revision)) == nil { remember(document) }
    }

    /// Caches `document`.
    /// - Parameter itemsHeldElsewhere: Whether its items are copies of items something else keeps alive (a view's
    ///   document written by this instance: its items are its base's, which the view's updater holds), so that only
    ///   its arrays are charged.
    func remember(_ document: ListDocument, itemsHeldElsewhere: Bool = false) {
        // What the document holds on the heap, so the cache's budget bounds memory; plus an eighth for the
        // allocator's holes between its blocks (`listdelta-bench memory` finds the process growing by 1.1 to 1.2
        // times the estimate).
        let heap = itemsHeldElsewhere ? document.estimatedHeapBytesOfArrays : document.estimatedHeapBytes
        let cost = RenderedBody.entryBytes + heap * 9 / 8
        documents.set(document, for: RevisionKey(list: document.id, revision: document.revision), cost: cost)
    }
}
