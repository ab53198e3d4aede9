import ListDeltaApplication
import HTTPServer
import ListDeltaAccess
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Synchronization

/// One Server-Sent Events client of one list or of many: catches every list up, then sends one `diff` event per
/// revision.
///
/// Every step runs on the stream's own serial lane of the read pool (holding no thread while idle), so events go
/// out in order and each is computed from the revision the client last received of its list; heartbeats are timed
/// by the service's timer queue.
///
/// The two forms differ only at their edges (see docs/api.md, Event streams and Many lists):
/// - **One list** (`/v1/lists/{id}/events`): an event's `id:` is the revision; a reset (`{"current"}`) ends the
///   stream.
/// - **One list's live query** (`/v1/lists/{id}/events?q=`): as one list, but the stream watches the query's key in
///   the hub (woken only when a base write changed the result) and sends the diff between the query's results;
///   a base revision that leaves the result as it was moves the stream's revision on without an event.
/// - **Many lists** (`/v1/events?lists=`): an event's `id:` is the whole set's cursor (`a:6,b:0`); a reset
///   (`{"id","current"}`) moves that list to `current` and the stream goes on, for it too: the client refetches the
///   list and skips the diffs it already has, and a deleted list (reset to 0) comes back as a diff from 0 when it is
///   created again.
final class EventStream: Sendable {
    enum Form: Sendable {
        case single
        case many
    }

    private let form: Form
    /// The live query a one-list stream follows, held until the stream ends.
    private let query: QueryKeeper.Hold?
    private let released = Atomic(false)
    private let stream: any HTTPStreaming
    private let context: RouteContext
    private let queue: SerialQueue
    private let cursor: Mutex<ListCursor>
    private let ended = Mutex(false)
    private let token = Mutex<Int?>(nil)
    /// When the stream's token expires (Unix seconds); `nil` for none.
    private let expiresAt = Mutex<Double?>(nil)

    init(_ form: Form, cursor: ListCursor, stream: any HTTPStreaming, context: RouteContext, query: QueryKeeper.Hold? = nil) {
        self.form = form
        self.query = query
        self.stream = stream
        self.context = context
        self.cursor = Mutex(cursor)
        self.queue = SerialQueue(pool: context.app.pools.read)
    }

    /// Subscribes to every list, then catches the client up on each, in the client's order, and starts the
    /// keep-alive comments.
    ///
    /// Subscribing first means a revision committed meanwhile is either published to the stream or seen by the
    /// catch-up, never lost.
    func start() {
        let ids = cursor.withLock { $0.ids }
        let token = context.app.hub.subscribe(lists: query.map { [$0.hubKey] } ?? ids) { [self] id, event in
            queue.async { self.handle(event, of: self.query?.query.definition.base ?? id) }
        }
        guard let token else {
            end()
            return
        }
        self.token.withLock { $0 = token }
        queue.async { [self] in
            for id in ids where !isEnded { catchUp(id) }
        }
        scheduleHeartbeat()
    }

    /// A comment line every `heartbeatSeconds` keeps proxies and clients from closing a quiet stream.
    private func scheduleHeartbeat() {
        context.app.after(context.options.heartbeatSeconds) { [self] in
            queue.async { [self] in
                guard !isEnded else { return }
                if stream.write(Array(": keep-alive\n\n".utf8)) {
                    scheduleHeartbeat()
                    armExpiry()
                } else {
                    end()
                }
            }
        }
    }

    private var isEnded: Bool { ended.withLock { $0 } }

    /// Ends the stream when `grant` expires (never for `nil` or a static token), with a comment saying why: the
    /// client reconnects with a fresh token. Each heartbeat checks the expiry; a one-off timer is armed only when
    /// it falls before the next heartbeat, so no timer outlives its stream by more than a heartbeat.
    func end(whenExpires grant: Grant?) {
        guard let expiry = grant?.expiresAt else { return }
        expiresAt.withLock { $0 = expiry }
        armExpiry()
    }

    private func armExpiry() {
        guard let expiry = expiresAt.withLock({ $0 }) else { return }
        let left = expiry - context.access.now()
        guard left <= context.options.heartbeatSeconds else { return }
        context.app.after(max(0, left)) { [weak self] in
            guard let self else { return }
            queue.async { [self] in
                guard !isEnded else { return }
                _ = stream.write(Array(": the token expired; reconnect with a fresh one\n\n".utf8))
                end()
            }
        }
    }

    /// Stops everything (the client went away or the stream ended).
    func end() {
        if let token = token.withLock({ token -> Int? in defer { token = nil }; return token }) {
            context.app.hub.unsubscribe(token: token)
        }
        let wasEnded = ended.withLock { ended in defer { ended = true }; return ended }
        if !wasEnded { stream.finish() }
        if let query, !released.exchange(true, ordering: .relaxed) { context.app.queries.release(query) }
    }

    private func handle(_ event: ListEvent, of id: String) {
        guard !isEnded else { return }
        if query != nil, !event.isEnding {
            // The query keeper published: its result changed.
            catchUp(id)
            return
        }
        switch event {
        case .revision(let outcome, let batch):
            guard let held = cursor.withLock({ $0[id] }), outcome.document.revision > held else { return }
            if outcome.previous.revision == held {
                send(batch.plain, of: id, to: outcome.document.revision)
            } else {
                catchUp(id, stepwise: context.app.repository.isShared)
            }
        case .committedElsewhere(let revision, _):
            guard let held = cursor.withLock({ $0[id] }), revision > held else { return }
            catchUp(id, stepwise: true)
        case .deleted:
            if form == .single || cursor.withLock({ $0[id] }) != 0 { reset(id, current: 0) }
        case .shutdown:
            end()
        }
    }

    /// Sends what the client needs of `id`: nothing, the diff to the current revision, or a reset.
    /// - Parameter stepwise: Whether to send one event per revision (up to ``maximumSteps``) rather than one diff
    ///   over all of them: a stream that follows a list written through several instances learns of their
    ///   revisions by announcements, and still sees each revision once, in order.
    private func catchUp(_ id: String, stepwise: Bool = false) {
        guard let held = cursor.withLock({ $0[id] }) else { return }
        if let query {
            catchUp(id, held: held, query: query.query)
            return
        }
        do {
            switch try ListProgress.of(id, held: held, in: context.app.repository) {
            case .current:
                return
            case .behind(let list):
                var from = held
                if stepwise, list.head.revision - held <= Self.maximumSteps {
                    while from + 1 < list.head.revision, !isEnded {
                        let rendered = try ServiceError.mapping { () throws(EngineError) in try context.app.bodies.diff(list, from: from, to: from + 1, format: .batch) }
                        send(rendered.plain, of: id, to: from + 1)
                        from += 1
                    }
                }
                let rendered = try ServiceError.mapping { () throws(EngineError) in try context.app.bodies.diff(list, from: from, to: list.head.revision, format: .batch) }
                send(rendered.plain, of: id, to: list.head.revision)
            case .reset(let current):
                reset(id, current: current)
            }
        } catch {
            // The store failed: the client refetches (and reports what it finds).
            reset(id, current: 0)
        }
    }

    /// Sends the diff of the query's result from the revision the client holds to the current one, or moves the
    /// client's revision on without an event when the result is as it was.
    private func catchUp(_ id: String, held: Int, query: LiveQuery) {
        do {
            switch try ListProgress.of(id, held: held, in: context.app.repository) {
            case .current:
                return
            case .behind(let list):
                let head = list.head
                let old = try QueryReading.result(query, at: held, head: head, context)
                let new = try QueryReading.result(query, at: head.revision, head: head, context)
                if old.hasSameContent(as: new) {
                    _ = advance(id, to: head.revision)
                    return
                }
                let rendered = try QueryReading.diff(from: query, at: held, to: query, at: head.revision, format: .batch, head: head, context)
                send(rendered.plain, of: id, to: head.revision)
            case .reset(let current):
                reset(id, current: current)
            }
        } catch {
            reset(id, current: 0)
        }
    }

    /// The most revisions a catch-up sends one by one; further behind, one diff covers them all.
    private static let maximumSteps = 64

    private func send(_ diff: [UInt8], of id: String, to revision: Int) {
        let eventID = advance(id, to: revision)
        var event = Array("event: diff\nid: \(eventID)\ndata: ".utf8)
        event += diff
        event += Array("\n\n".utf8)
        if !stream.write(event) { end() }
    }

    /// `event: reset` with the current revision; it ends a one-list stream.
    private func reset(_ id: String, current: Int) {
        switch form {
        case .single:
            _ = stream.write(Array("event: reset\ndata: {\"current\":\(current)}\n\n".utf8))
            end()
        case .many:
            let eventID = advance(id, to: current)
            let data = "{\"id\":\"\(id)\",\"current\":\(current)}"
            if !stream.write(Array("event: reset\nid: \(eventID)\ndata: \(data)\n\n".utf8)) { end() }
        }
    }

    /// Records that the client now holds `revision` of `id`; returns the event id that says so.
    private func advance(_ id: String, to revision: Int) -> String {
        cursor.withLock { cursor in
            cursor[id] = revision
            return form == .single ? String(revision) : cursor.description
        }
    }
}
