import ListDeltaApplication
import HTTPServer
import ListDeltaAccess
import ListDeltaEngine
import ListDeltaStorage

/// A long poll on many lists (`GET /v1/diffs?lists=...&wait=S`), parked on all of them under one hub token until
/// the first moves.
///
/// Whoever unparks it first (the hub, telling it of a write or deletion of any of its lists; the wait's end; the
/// client leaving) owns its answer, so it is answered once.
struct ManyListsPoll: Sendable {
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
    static func moves(of cursor: ListCursor, _ context: RouteContext) throws(ServiceError) -> Moves {
        var moves = Moves()
        for id in cursor.ids {
            guard let held = cursor[id] else { continue }
            switch try ListProgress.of(id, held: held, in: context.app.repository) {
            case .current:
                continue
            case .behind(let list):
                moves.diffs.append(try ServiceError.mapping { () throws(EngineError) in try context.app.bodies.diff(list, from: held, to: list.head.revision, format: .batch) }.plain)
            case .reset(let current):
                moves.resets.append((id, current))
            }
        }
        return moves
    }

    let cursor: ListCursor
    let responder: any HTTPResponding
    let context: RouteContext

    /// Parks on every list, then checks them again: a write committed while parking either wakes the poll or is
    /// seen by that check. `grant`'s expiry, when it comes before `wait` ends, ends the poll with 401. Runs on a
    /// worker.
    func park(wait: Double, grant: Grant?) {
        let token = context.app.hub.park(lists: cursor.ids) { _, event in
            if case .shutdown = event {
                responder.respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
            } else {
                context.app.continueWork { answer() }
            }
        }
        guard let token else {
            responder.respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
            return
        }
        responder.onClose { _ = context.app.hub.unpark(token: token) }
        let hold = context.access.holdTime(wait: wait, grant: grant)
        context.app.after(hold.seconds) {
            guard context.app.hub.unpark(token: token) else { return }
            if hold.tokenExpires {
                responder.respond(Responses.problem(AccessControl.expired))
            } else {
                context.app.continueWork { answer() }
            }
        }
        do {
            let moves = try Self.moves(of: cursor, context)
            if !moves.isEmpty, context.app.hub.unpark(token: token) { responder.respond(moves.response) }
        } catch {
            if context.app.hub.unpark(token: token) { responder.respond(Responses.problem(error)) }
        }
    }

    /// Answers with every list's moves now.
    private func answer() {
        responder.respond(RouteContext.answer { () throws(ServiceError) in try Self.moves(of: cursor, context).response })
    }
}
