public import Foundation
public import ListDeltaCore

/// Follows one list and writes to it by item id: optimistic, in order, once, and safe offline.
///
/// ```swift
/// let writer = ListWriter(baseURL: server, listID: "groceries",
///                         storage: FileListStorage(directory: appSupport.appendingPathComponent("lists")))
/// Task { @MainActor in for await update in writer.updates { binding.apply(update) } }
/// await writer.start()
/// let revision = try await writer.insert(ListItem(id: "milk", model: ["title": "Milk"]), at: .last(in: "main"))
/// ```
///
/// Behaviour, as client.js's writable follower (docs/clients.md; `Idempotency-Key` in docs/api.md):
/// - **Optimistic.** ``updates`` yields what to show: the server's document with the writes not yet acknowledged
///   on top. Each write is shown at once as a batch diff; each server change is applied to the server's document,
///   the writes re-applied on top, and the view gets the diff from what it showed (computed by id, and checked to
///   lead exactly there, so UIKit accepts it).
/// - **By id.** A write is sent as a JSON Patch built against the newest server document the writer holds, with
///   `test` operations guarding the ids at the paths it uses. A 409 from a guard means the indexes moved: the write is
///   built again from the current document and sent as a new request with a new key, after a backoff. A write whose
///   item, anchor or section is gone throws ``ListWriteError/conflict(_:)``, and the view gets the rollback.
/// - **Once, in order.** Every write carries an `Idempotency-Key`; one whose answer was lost (no connection, a 5xx, a
///   timeout) is sent again with the same key until it is acknowledged or refused. One write is in flight at a time.
/// - **Offline.** Writes queue while the server cannot be reached (each failure goes to `FollowOptions.onRetry`).
///   With a ``ListStorage``, the server's document and the pending writes (their keys too) are stored; a writer made
///   later on it yields them at once as a `.reset` of reason `.restored`, before any request, then fetches the
///   current document (shown as a diff) and sends them.
///
/// A writer is started once and stopped once; ``stop()`` ends ``updates``.
public actor ListWriter {
    /// The server's root URL.
    public nonisolated let baseURL: URL
    /// The list followed and written.
    public nonisolated let listID: String
    /// What to show: the first document (or the restored one), then a batch diff per change, optimistic writes and
    /// rollbacks included. Iterate it once.
    public nonisolated let updates: AsyncStream<ListUpdate>

    let options: FollowOptions
    let storage: (any ListStorage)?
    let transport: any ListTransport
    let endpoints: ListEndpoints
    private let output: AsyncStream<ListUpdate>.Continuation

    /// What ``updates`` last yielded: the server's document with the pending writes on top.
    public private(set) var document: ListDocument?
    /// The server's document, as the follower last brought it.
    var confirmed: ListDocument?
    /// The newest server document fetched to build a write against (newer than `confirmed` at times).
    var latest: ListDocument?
    /// The writes not yet acknowledged, in order.
    var queue: [QueuedWrite] = []
    /// How many writes ``perform(_:)`` queued so far.
    private(set) var writesMade = 0
    /// Writes acknowledged at a revision `confirmed` has not reached: still shown on top of it.
    var acknowledged: [AcknowledgedWrite] = []
    /// `false` while what the storage holds is unread (or could not be read): nothing is stored then.
    var storageReadable = false
    /// Where the writer is in its life: made, reading its storage, running, stopping, stopped.
    var phase = Phase.idle
    /// Following and sending: between the end of ``start()`` and ``stop()``.
    var running: Bool { phase == .running }
    /// Whether what was last shown is the server's document with no write on top (its diffs are then passed on).
    private var showsServerDocument = false
    var backoff: Backoff
    var sendTask: Task<Void, Never>?
    var saveTask: Task<Void, Never>?
    var saveWanted = false
    private var followTask: Task<Void, Never>?

    enum Phase {
        case idle, restoring, running, stopping, stopped
    }

    /// A write in the queue: what is stored, and the outcome its caller awaits.
    struct QueuedWrite {
        var pending: PendingWrite
        let outcome = WriteOutcome()
    }

    /// A writer of `listID` on the server at `baseURL`. `options` says how changes are followed (its `query` is
    /// ignored: a writer follows the whole list), its `headers` go with every request, its `backoff` paces retries.
    public init(
        baseURL: URL, listID: String, options: FollowOptions = FollowOptions(), storage: (any ListStorage)? = nil,
        transport: any ListTransport = URLSessionTransport()
    ) {
        self.baseURL = baseURL
        self.listID = listID
        var options = options
        options.query = nil
        self.options = options
        self.storage = storage
        self.transport = transport
        endpoints = ListEndpoints(baseURL: baseURL, listID: listID)
        backoff = Backoff(options.backoff)
        (updates, output) = AsyncStream.makeStream()
    }

    /// The writes not yet acknowledged, in order, with the key each was last sent with.
    public var pendingWrites: [PendingWrite] { queue.map(\.pending) }

    /// Restores what the storage holds (yielded at once), then starts following and sending. Writes made meanwhile
    /// go after the restored ones.
    public func start() async {
        guard phase == .idle else { return }
        phase = .restoring
        await restore()
        guard phase == .restoring else { return } // stopped meanwhile
        phase = .running
        let follower = ListFollower(baseURL: baseURL, listID: listID, options: options, transport: transport)
        followTask = Task { [weak self] in
            for await update in follower {
                await self?.take(update)
            }
        }
        kick()
    }

    /// Stops following and sending, and ends ``updates`` (also before ``start()``). Every pending write's caller gets
    /// ``ListWriteError/stopped``; with a storage the writes stay stored for the next writer on it (a write in flight
    /// may have landed: its key makes the next send of it harmless). Nothing is stored once this returns.
    public func stop() async {
        guard phase != .stopping, phase != .stopped else { return }
        phase = .stopping
        followTask?.cancel()
        sendTask?.cancel()
        followTask = nil
        await save()
        for entry in queue { entry.outcome.settle(.failure(.stopped)) }
        if storage == nil { queue.removeAll() }
        phase = .stopped
        output.finish()
    }

    /// Inserts `item` (an id the list does not have; `cell` `nil` takes the list's registry's) at `placement`.
    /// - Returns: the revision the write made, once the server acknowledged it.
    /// - Throws: ``ListWriteError``: a conflict when the section or the anchor is gone.
    @discardableResult
    public func insert(_ item: ListItem, at placement: ListPlacement) async throws(ListWriteError) -> Int {
        try await perform(.insert(item, at: placement))
    }

    /// Replaces the members of item `id` that `changes` sets.
    @discardableResult
    public func update(_ id: String, _ changes: ItemChanges) async throws(ListWriteError) -> Int {
        try await perform(.update(id: id, changes: changes))
    }

    /// Removes item `id`.
    @discardableResult
    public func remove(_ id: String) async throws(ListWriteError) -> Int {
        try await perform(.remove(id: id))
    }

    /// Moves item `id` to `placement`.
    @discardableResult
    public func move(_ id: String, to placement: ListPlacement) async throws(ListWriteError) -> Int {
        try await perform(.move(id: id, to: placement))
    }

    /// Replaces the whole document (a PUT body: any form docs/api.md accepts).
    @discardableResult
    public func put(_ body: JSONValue) async throws(ListWriteError) -> Int {
        try await perform(.put(body))
    }

    /// Sends RFC 6902 `operations` as they are: a conflict (reason `.patch`) when the server cannot apply them.
    @discardableResult
    public func patch(_ operations: JSONValue) async throws(ListWriteError) -> Int {
        try await perform(.patch(operations))
    }

    /// Queues `write`, shows it, stores it and sends it in its turn; returns its revision once acknowledged. A
    /// cancelled caller does not cancel the write. Writes made before ``start()`` are sent once it runs.
    public func perform(_ write: ListWrite) async throws(ListWriteError) -> Int {
        if phase == .stopping || phase == .stopped { throw .stopped }
        let entry = QueuedWrite(pending: PendingWrite(write: try write.validated()))
        queue.append(entry)
        writesMade += 1
        render()
        await save()
        kick()
        return try await entry.outcome.value().get()
    }

    /// Takes what the follower brought as the server's document, and shows it with the writes on top.
    private func take(_ update: ListUpdate) {
        guard running else { return }
        if let held = confirmed, update.document.revision < held.revision {
            // The list was made again: what was acknowledged on the old one is not in it, nor was what was fetched.
            acknowledged.removeAll()
            latest = nil
        }
        confirmed = update.document
        acknowledged.removeAll { $0.revision <= update.document.revision }
        render(server: update)
        Task { await save() }
        kick()
    }

    /// `document` with the acknowledged and pending writes on top, in order; one that cannot apply is left out.
    func overlay(_ base: ListDocument) -> ListDocument {
        var shown = base
        for write in acknowledged.map(\.write) + queue.map(\.pending.write) {
            if let next = write.applied(to: shown) { shown = next }
        }
        return shown
    }

    /// Shows the server's document with the writes on top: yields the diff from what was shown (the server's own
    /// diff when no write is on top before or after), the whole document the first time.
    func render(server update: ListUpdate? = nil) {
        guard let confirmed else { return }
        let shown = overlay(confirmed)
        let before = document
        let wasPlain = showsServerDocument
        document = shown
        showsServerDocument = acknowledged.isEmpty && queue.isEmpty
        guard let before else {
            output.yield(ListUpdate(document: shown, change: update?.change ?? .initial))
            return
        }
        if before == shown { return }
        if let diff = update?.diff, wasPlain, showsServerDocument, diff.from == before.revision {
            output.yield(ListUpdate(document: shown, change: .diff(diff)))
            return
        }
        let diff = ListDiff(from: before, to: shown)
        // A computed batch must lead exactly to what is shown (UIKit refuses any other); else the view reloads.
        guard (try? diff.apply(to: before)) == shown else {
            output.yield(ListUpdate(document: shown, change: .reset(ListReset(reason: .check, detail: "a computed batch did not fit", from: before.revision))))
            return
        }
        output.yield(ListUpdate(document: shown, change: .diff(diff)))
    }
}
