import Foundation
import ListDeltaCore
import ListDeltaStore
import Synchronization

/// The lists: their revisions in the store, the hot ones in memory, writes serialised per list.
///
/// Reads of a current document touch memory only; an older revision is rebuilt from the nearest checkpoint (or
/// the nearest revision still in memory) by replaying deltas. Writes to one list are serialised by a lock, so of
/// racing writers with the same `If-Match` exactly one wins; a write is acknowledged only after the store
/// committed it.
final class ListRepository: Sendable {
    private let store: ListStore
    private let factory: DataProviderFactory
    private let documents: LRUCache<RevisionKey, ListDocument>
    private let heads = Mutex([String: ListHead]())
    private let locks: [NSLock] = (0..<64).map { _ in NSLock() }

    init(store: ListStore, limits: DocumentLimits, cacheBytes: Int) {
        self.store = store
        self.factory = DataProviderFactory(limits: limits)
        self.documents = LRUCache(budget: cacheBytes)
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
    func head(_ id: String) throws(ServiceError) -> ListHead? {
        if let cached = heads.withLock({ $0[id] }) { return cached }
        let loaded: ListHead?
        do {
            loaded = try store.head(id)
        } catch {
            throw ServiceError.from(error)
        }
        if let loaded { heads.withLock { $0[id] = loaded } }
        return loaded
    }

    /// The live list `id`, or 404.
    func live(_ id: String) throws(ServiceError) -> LiveList {
        guard let head = try head(id), !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
        return LiveList(head: head, document: try document(id, revision: head.revision, head: head))
    }

    /// `true` when `revision` can be served: 0 (the empty list) or a retained revision.
    func isServable(_ revision: Int, head: ListHead) -> Bool {
        revision == 0 || (head.oldestRevision...head.revision).contains(revision)
    }

    /// The document at `revision` (0 is the empty list), or 410 when it is not retained.
    /// - Complexity: O(1) when in memory; else O(*n* · *d*) for *d* deltas replayed on *n* items.
    func document(_ id: String, revision: Int, head: ListHead) throws(ServiceError) -> ListDocument {
        if revision == 0 { return .empty(id: id) }
        guard isServable(revision, head: head) else {
            throw .gone(current: head.revision, detail: "revision \(revision) of \"\(id)\" is not retained; the oldest is \(head.oldestRevision)")
        }
        if let cached = documents.value(for: RevisionKey(list: id, revision: revision)) { return cached }
        let chain: [StoredRevision]?
        do {
            chain = try store.chain(id, upTo: revision)
        } catch {
            throw ServiceError.from(error)
        }
        guard let chain, let first = chain.first else {
            throw .gone(current: head.revision, detail: "revision \(revision) of \"\(id)\" is not retained")
        }
        do {
            // Start from the newest revision of the chain that is still in memory, else from the checkpoint.
            var startIndex = 0
            var document: ListDocument?
            for index in stride(from: chain.count - 1, through: 1, by: -1) {
                if let cached = documents.value(for: RevisionKey(list: id, revision: chain[index].revision)) {
                    document = cached
                    startIndex = index
                    break
                }
            }
            if document == nil {
                guard let snapshot = first.snapshot else { throw ServiceError.storage("revision \(first.revision) of \(id) has no checkpoint") }
                document = try RevisionCodec.document(fromSnapshot: snapshot)
            }
            var current = document!
            for row in chain[(startIndex + 1)...] {
                guard let delta = row.delta else { throw ServiceError.storage("revision \(row.revision) of \(id) has no delta") }
                current = try RevisionCodec.apply(delta: delta, to: consume current)
                current.revision = row.revision
            }
            remember(current)
            return current
        } catch let error as RevisionCodec.CorruptRevision {
            throw .storage(error.description)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
    }

    /// Live lists in id order, after `after`, at most `limit`, and whether more follow.
    func lists(after: String?, limit: Int) throws(ServiceError) -> (lists: [ListHead], more: Bool) {
        do {
            let page = try store.lists(after: after, limit: limit + 1)
            return (Array(page.prefix(limit)), page.count > limit)
        } catch {
            throw ServiceError.from(error)
        }
    }

    private func remember(_ document: ListDocument) {
        // Roughly what the document holds in memory: its items dominate.
        let cost = 512 + document.itemCount * 160 + document.sections.count * 96
        documents.set(document, for: RevisionKey(list: document.id, revision: document.revision), cost: cost)
    }

    // MARK: - Writing

    private func lock(for id: String) -> NSLock {
        var hasher = Hasher()
        hasher.combine(id)
        return locks[Int(UInt(bitPattern: hasher.finalize()) % UInt(locks.count))]
    }

    /// Writes the next revision of `id`: `build` turns the current document (nil when absent) into the new one.
    ///
    /// Checks the preconditions, makes no revision when nothing changed, commits (durably) before returning;
    /// `onCommit` runs after the commit, still under the list's lock, so watchers see revisions in order.
    func write(
        _ id: String, preconditions: WritePreconditions, onCommit: (WriteOutcome) -> Void,
        build: (ListDocument?, Int) throws(ServiceError) -> ListDocument
    ) throws(ServiceError) -> WriteOutcome {
        let lock = lock(for: id)
        lock.lock()
        defer { lock.unlock() }
        let head = try self.head(id)
        let live = head.flatMap { $0.isDeleted ? nil : $0 }
        if let expected = preconditions.ifMatch, live?.revision != expected {
            throw .preconditionFailed(current: live?.revision, detail: "If-Match \"\(expected)\" does not match the current revision \(live.map { "\"\($0.revision)\"" } ?? "(no list)")")
        }
        if preconditions.ifMatchAny, live == nil {
            throw .preconditionFailed(current: nil, detail: "If-Match: * needs an existing list")
        }
        if preconditions.createOnly, let live {
            throw .preconditionFailed(current: live.revision, detail: "If-None-Match: * but the list exists at revision \(live.revision)")
        }
        let previous = try live.map { (head) throws(ServiceError) in try document(id, revision: head.revision, head: head) }
        let nextRevision = (head?.revision ?? 0) + 1
        let next = try build(previous, nextRevision)
        if let previous, previous.hasSameContent(as: next) {
            let empty = ListDiff(listID: id, from: previous.revision, to: previous.revision, fromCounts: previous.sectionCounts, toCounts: previous.sectionCounts)
            return WriteOutcome(document: previous, diff: empty, previous: previous, created: false, changed: false)
        }
        let base = previous ?? .empty(id: id)
        let diff = ListDiff(from: base, to: next)
        let delta = previous == nil ? nil : RevisionCodec.delta(diff, to: next)
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
            itemCount: next.itemCount, delta: delta, snapshot: snapshot)
        let newHead: ListHead
        do {
            newHead = try store.append(write)
        } catch {
            throw ServiceError.from(error)
        }
        guard newHead.revision == nextRevision else {
            throw .storage("the store numbered revision \(newHead.revision), expected \(nextRevision)")
        }
        heads.withLock { $0[id] = newHead }
        remember(next)
        let outcome = WriteOutcome(document: next, diff: diff, previous: base, created: previous == nil, changed: true)
        onCommit(outcome)
        return outcome
    }

    /// Deletes `id`; returns its last head.
    func delete(_ id: String, preconditions: WritePreconditions, onCommit: () -> Void) throws(ServiceError) -> ListHead {
        let lock = lock(for: id)
        lock.lock()
        defer { lock.unlock() }
        guard let head = try head(id), !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
        if let expected = preconditions.ifMatch, head.revision != expected {
            throw .preconditionFailed(current: head.revision, detail: "If-Match \"\(expected)\" does not match the current revision \"\(head.revision)\"")
        }
        let removed: ListHead?
        do {
            removed = try store.delete(id, expectedRevision: preconditions.ifMatch)
            let tombstone = try store.head(id)
            heads.withLock { $0[id] = tombstone }
        } catch {
            throw ServiceError.from(error)
        }
        documents.removeAll { $0.list == id }
        guard let removed else { throw .notFound("there is no list \"\(id)\"") }
        onCommit()
        return removed
    }
}
