import Foundation
public import ListDeltaCore
public import ListDeltaStorage

/// The lists: their revisions in the store, the hot ones in memory, writes serialised per list.
///
/// Reads of a current document touch memory only; an older revision is rebuilt the cheaper way
/// (``RebuildPath``): walked back from the current document through undo diffs, or replayed forwards from the
/// nearest checkpoint (or a newer revision of its chain still in memory). Writes to one list are serialised by
/// that list's own lock (writes to other lists never wait for it), so of racing writers with the same `If-Match`
/// exactly one wins; a write is acknowledged only after the store committed it.
///
/// With a store other instances write to (``RevisionStore/isShared``), cached heads may lag behind the store:
/// they are corrected by announcements (``announce(_:revision:deleted:)``, from the store's notifications), a read
/// that names a revision newer than the cached head goes to the store (`atLeast`), and a write reads the head from
/// the store; the store itself decides which of racing writers wins.
///
/// Threading (see ``EventLoopCheck``): the methods that may read the store (``head(_:atLeast:)``, ``live(_:atLeast:)``,
/// ``document(_:revision:head:)``, ``history(_:before:limit:)``, ``lists(after:limit:)``,
/// ``write(_:origin:preconditions:mustExist:onCommit:build:)``, ``delete(_:preconditions:onCommit:)``) run on
/// workers and stop the process when called on an event loop, in release builds too, whether or not the answer
/// is in memory. ``cachedHead(_:)``, ``cachedDocument(_:revision:)`` and ``mightExist(_:)`` touch memory only and
/// are what the loops use.
public final class ListRepository: Sendable {
    let store: any RevisionStore
    let factory: DataProviderFactory
    let documents: LRUCache<RevisionKey, ListDocument>
    /// Undo diffs read back, by the revision they undo: a revision never changes, and clients catching up on a
    /// busy list walk the same recent ones again and again.
    let undoDiffs: LRUCache<RevisionKey, RevisionCodec.Delta>
    /// The heads of recently used lists, live or deleted (bounded by count; the store is the truth).
    let heads: HeadCache
    /// The ids that may exist; `nil` when every lookup goes to the store.
    let ids: ListIDFilter?
    let locks = KeyedLocks<String>()
    /// How revisions not in memory were rebuilt.
    public let rebuilds: RebuildStatistics
    /// Which threads must never call what may block.
    let loopCheck: EventLoopCheck

    /// The filter of existing ids, which lets reads of unknown ids be answered without the store, is loaded here
    /// for a store no other process writes.
    /// - Parameters:
    ///   - cacheBytes: Memory for rebuilt documents, and an eighth more for undo diffs read back.
    ///   - cachedHeads: How many list heads are kept in memory.
    ///   - loopCheck: Tells the threads that must never block (an HTTP server's event loops).
    ///   - rebuilds: Where rebuilds of revisions not in memory are counted.
    /// - Throws: The store's failure as an ``EngineError`` (``EngineError/from(_:)``) when the ids cannot be read.
    public init(
        store: any RevisionStore, limits: DocumentLimits, cacheBytes: Int, cachedHeads: Int = 100_000, loopCheck: EventLoopCheck = .none,
        rebuilds: RebuildStatistics = RebuildStatistics()
    ) throws(EngineError) {
        self.store = store
        self.loopCheck = loopCheck
        self.rebuilds = rebuilds
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
            throw EngineError.from(error)
        }
        let filter = ListIDFilter(capacity: max(1 << 20, existing.count * 2))
        for id in existing { filter.insert(id) }
        ids = filter
    }

    // MARK: - Reading from memory (any thread, the loops included)

    /// `false` when no list `id` exists for certain (answered without the store).
    public func mightExist(_ id: String) -> Bool { ids?.mightContain(id) ?? true }

    /// The head of `id` when it is in memory (and no announcement made it stale).
    public func cachedHead(_ id: String) -> ListHead? { heads.head(id) }

    /// Whether other instances write to the store.
    public var isShared: Bool { store.isShared }

    /// Records that another instance committed `revision` of `id` (or deleted it): the next read of its head goes
    /// to the store unless a head at least that new is cached. Returns whether a cached head was stale.
    @discardableResult
    public func announce(_ id: String, revision: Int, deleted: Bool) -> Bool {
        heads.announce(id, revision: revision, deleted: deleted)
    }

    /// Stops trusting cached heads while announcements cannot be received (every head read goes to the store).
    public func suspendHeadCache() { heads.suspend() }

    /// Trusts cached heads again, starting from none: announcements are received again.
    public func resumeHeadCache() { heads.resume() }

    /// The document at `revision` when it is in memory.
    public func cachedDocument(_ id: String, revision: Int) -> ListDocument? {
        documents.value(for: RevisionKey(list: id, revision: revision))
    }

    /// Lists and revisions held in memory, for metrics.
    public var cacheUsage: (heads: Int, documents: Int, documentBytes: Int) {
        let documents = documents.usage
        return (heads.count, documents.count, documents.cost)
    }

    /// The limits every written document is checked against.
    public var documentLimits: DocumentLimits { factory.limits }

    /// The validated document the JSON text of a write describes, read straight into items when the factory's
    /// fast reader takes it; `nil` otherwise (parse it, then call `makeDocument(from:listID:revision:)`).
    public func readDocument(json body: [UInt8], listID: String, revision: Int, maximumDepth: Int) -> ListDocument? {
        factory.readDocument(json: body, listID: listID, revision: revision, maximumDepth: maximumDepth)
    }

    /// The validated document a write body describes.
    public func makeDocument(from body: JSONValue, listID: String, revision: Int) throws(EngineError) -> ListDocument {
        do {
            return try factory.makeDocument(from: body, listID: listID, revision: revision)
        } catch {
            throw .unprocessable(error)
        }
    }
}
