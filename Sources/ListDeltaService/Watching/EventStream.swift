import HTTPServer
import ListDeltaCore
import Synchronization

/// One Server-Sent Events client of a list: catches it up, then sends one `diff` event per revision.
///
/// Every step runs on the stream's own serial lane of the read pool (holding no thread while idle), so events go
/// out in order and each is computed from the revision the client last received; heartbeats are timed by the
/// service's timer queue.
final class EventStream: Sendable {
    private let listID: String
    private let stream: any HTTPStreaming
    private let context: ServiceContext
    private let queue: SerialQueue
    private let lastSent: Mutex<Int>
    private let ended = Mutex(false)
    private let token = Mutex<Int?>(nil)

    init(listID: String, from: Int, stream: any HTTPStreaming, context: ServiceContext) {
        self.listID = listID
        self.stream = stream
        self.context = context
        self.lastSent = Mutex(from)
        self.queue = SerialQueue(pool: context.readPool)
    }

    /// Subscribes, then catches the client up to the current revision and starts the keep-alive comments.
    func start() {
        let token = context.hub.subscribe(list: listID) { [self] event in
            queue.async { self.handle(event) }
        }
        guard let token else {
            end()
            return
        }
        self.token.withLock { $0 = token }
        queue.async { [self] in
            do {
                let current = try context.repository.live(listID)
                catchUp(to: current)
            } catch {
                reset(current: 0)
            }
        }
        scheduleHeartbeat()
    }

    /// A comment line every `heartbeatSeconds` keeps proxies and clients from closing a quiet stream.
    private func scheduleHeartbeat() {
        context.after(context.configuration.heartbeatSeconds) { [self] in
            queue.async { [self] in
                guard !ended.withLock({ $0 }) else { return }
                if stream.write(Array(": keep-alive\n\n".utf8)) { scheduleHeartbeat() } else { end() }
            }
        }
    }

    /// Stops everything (the client went away or the stream ended).
    func end() {
        if let token = token.withLock({ token -> Int? in defer { token = nil }; return token }) {
            context.hub.unsubscribe(list: listID, token: token)
        }
        let wasEnded = ended.withLock { ended in defer { ended = true }; return ended }
        if !wasEnded { stream.finish() }
    }

    private func handle(_ event: ListEvent) {
        switch event {
        case .revision(let outcome, let batch):
            let sent = lastSent.withLock { $0 }
            guard outcome.document.revision > sent else { return }
            if outcome.previous.revision == sent {
                send(batch.plain, to: outcome.document.revision)
            } else {
                do {
                    catchUp(to: try context.repository.live(listID))
                } catch {
                    reset(current: 0)
                }
            }
        case .deleted:
            reset(current: 0)
        case .shutdown:
            end()
        }
    }

    private func catchUp(to list: LiveList) {
        let sent = lastSent.withLock { $0 }
        guard list.head.revision != sent else { return }
        guard context.repository.isServable(sent, head: list.head), sent <= list.head.revision else {
            reset(current: list.head.revision)
            return
        }
        do {
            let rendered = try context.renderedDiff(list, from: sent, to: list.head.revision, format: .batch)
            send(rendered.plain, to: list.head.revision)
        } catch {
            reset(current: list.head.revision)
        }
    }

    private func send(_ diff: [UInt8], to revision: Int) {
        var event = Array("event: diff\nid: \(revision)\ndata: ".utf8)
        event += diff
        event += Array("\n\n".utf8)
        lastSent.withLock { $0 = revision }
        if !stream.write(event) { end() }
    }

    /// `event: reset` with the current revision, then the end of the stream.
    private func reset(current: Int) {
        _ = stream.write(Array("event: reset\ndata: {\"current\":\(current)}\n\n".utf8))
        end()
    }
}
