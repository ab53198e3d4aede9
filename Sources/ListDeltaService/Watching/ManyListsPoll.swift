import HTTPServer
import Synchronization

/// A long poll on many lists (`GET /v1/diffs?lists=...&wait=S`), parked on every one of them until the first moves.
///
/// It is parked on each list of the hub; whichever comes first (a write or deletion of any list, the wait's end,
/// shutdown, the client leaving) *claims* the poll, which unparks it everywhere else, so it is answered once.
final class ManyListsPoll: Sendable {
    /// What a many-lists poll answers: the diffs of the lists that moved and the resets of those that cannot be
    /// answered with a diff, in the client's order.
    struct Moves: Sendable {
        var diffs: [[UInt8]] = []
        var resets: [(id: String, current: Int)] = []

        var isEmpty: Bool { diffs.isEmpty && resets.isEmpty }

        /// `{"diffs":[...],"resets":[{"id","current"}]}`, compressed when it pays.
        var response: HTTPResponse {
            var body = Array("{\"diffs\":[".utf8)
            for (index, diff) in diffs.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                body += diff
            }
            body += Array("],\"resets\":[".utf8)
            body += Array(resets.map { "{\"id\":\"\($0.id)\",\"current\":\($0.current)}" }.joined(separator: ",").utf8)
            body += Array("]}".utf8)
            let rendered = RenderedBody(bytes: body)
            return HTTPResponse(status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: rendered.body)
        }
    }

    /// Where every list of `cursor` stands: the diffs and resets to answer now (empty: nothing moved).
    /// - Complexity: O(*n*) head lookups, plus the diffs of the lists that moved (rendered once, then cached).
    static func moves(of cursor: ListCursor, _ context: ServiceContext) throws(ServiceError) -> Moves {
        var moves = Moves()
        for id in cursor.ids {
            guard let held = cursor[id] else { continue }
            switch try ListProgress.of(id, held: held, in: context.repository) {
            case .current:
                continue
            case .behind(let list):
                moves.diffs.append(try context.renderedDiff(list, from: held, to: list.head.revision, format: .batch).plain)
            case .reset(let current):
                moves.resets.append((id, current))
            }
        }
        return moves
    }

    private struct State {
        var claimed = false
        var tokens: [(list: String, token: Int)] = []
    }

    private let cursor: ListCursor
    private let responder: any HTTPResponding
    private let context: ServiceContext
    private let state = Mutex(State())

    init(cursor: ListCursor, responder: any HTTPResponding, context: ServiceContext) {
        self.cursor = cursor
        self.responder = responder
        self.context = context
    }

    /// Parks on every list, then checks them again: a write committed while parking either wakes the poll or is
    /// seen by that check. Runs on a worker.
    func park(wait: Double) {
        for id in cursor.ids {
            guard let token = context.hub.park(list: id, { [self] event in tell(event) }) else {
                if claim() { responder.respond(Responses.problem(.unavailable("the server is shutting down; poll again"))) }
                return
            }
            let stillParked = state.withLock { state in
                if !state.claimed { state.tokens.append((id, token)) }
                return !state.claimed
            }
            if !stillParked {
                _ = context.hub.unpark(list: id, token: token)
                return
            }
        }
        responder.onClose { [self] in _ = claim() }
        context.after(wait) { [self] in
            if claim() { context.continueWork { self.answer() } }
        }
        do {
            let moves = try Self.moves(of: cursor, context)
            if !moves.isEmpty, claim() { responder.respond(moves.response) }
        } catch {
            if claim() { responder.respond(Responses.problem(error)) }
        }
    }

    /// Takes the poll (`false` when something else already did) and unparks it from every list.
    private func claim() -> Bool {
        let tokens: [(list: String, token: Int)]? = state.withLock { state in
            guard !state.claimed else { return nil }
            state.claimed = true
            defer { state.tokens = [] }
            return state.tokens
        }
        guard let tokens else { return false }
        for (list, token) in tokens { _ = context.hub.unpark(list: list, token: token) }
        return true
    }

    private func tell(_ event: ListEvent) {
        guard claim() else { return }
        if case .shutdown = event {
            responder.respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
        } else {
            context.continueWork { self.answer() }
        }
    }

    /// Answers with every list's moves now.
    private func answer() {
        responder.respond(ServiceContext.answer { () throws(ServiceError) in try Self.moves(of: cursor, context).response })
    }
}
