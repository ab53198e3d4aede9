import ListDeltaApplication
import HTTPServer
import ListDeltaAccess
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage

/// `GET /v1/lists/{id}/diff?from=N[&to=M][&format=batch|json-patch][&wait=S][&cursor=K]`, long polls included; with
/// `q` or `fromQuery`, ``QueryDiffRoutes`` answers.
///
/// A diff without `to` is a poll: its answer is cacheable for `cursorSeconds` and names the next poll in a `Link`
/// header, and a poll whose list has not moved is held until the end of its cursor's interval or its `wait`
/// (``PollCursor``), so that a shared cache collapses the polls of every client at one revision into one request.
struct DiffRoutes {
    let context: RouteContext

    /// A checked diff request.
    private struct DiffRequest: Sendable {
        let list: LiveList
        let from: Int
        let to: Int
        let explicitTo: Bool
        let format: DiffFormat
        let wait: Double
        /// The poll's interval: its `cursor`, or the interval it arrived in.
        let cursor: Int
        /// `format` and `wait` as the request wrote them, repeated in the `next` link.
        let givenFormat: String?
        let givenWait: String?
        /// What allowed the read (`nil`: reads are public); its expiry ends a held poll with 401.
        let grant: Grant?
    }

    func register(in router: inout Router) {
        let context = self.context
        router.add(.GET, "/v1/lists/{id}/diff") { request, responder in
            guard let readable = context.readableList(request, responder) else { return }
            context.admit(responder) {
                let diffRequest: DiffRequest
                let queryRequest: QueryDiffRoutes.Request?
                do throws(ServiceError) {
                    let queries = try QueryDiffRoutes.Queries(request, context)
                    diffRequest = try Self.read(request, grant: readable.grant, context)
                    queryRequest = QueryDiffRoutes.request(
                        queries, base: diffRequest.list.head.id, from: diffRequest.from, to: diffRequest.explicitTo ? diffRequest.to : nil,
                        format: diffRequest.format, wait: diffRequest.wait, cursor: diffRequest.cursor, grant: readable.grant, request, context)
                } catch {
                    responder.respond(Responses.problem(error))
                    return
                }
                let hold = context.pollCursor.hold(cursor: diffRequest.cursor, wait: diffRequest.wait, now: RouteContext.wallClock())
                if let queryRequest {
                    QueryDiffRoutes.answer(queryRequest, hold: hold, head: diffRequest.list.head, request, responder, context)
                } else if !diffRequest.explicitTo, hold > 0, diffRequest.from == diffRequest.list.head.revision {
                    Self.park(diffRequest, hold: hold, request, responder, context)
                } else {
                    responder.respond(RouteContext.answer { () throws(ServiceError) in try Self.answer(diffRequest, request, context) })
                }
            }
        }
    }

    private static func read(_ request: HTTPRequest, grant: Grant?, _ context: RouteContext) throws(ServiceError) -> DiffRequest {
        let id = try RequestReading.listID(request)
        guard let from = try RequestReading.integer(request, "from") else { throw .badRequest("from is required (0 for the empty list)") }
        let to = try RequestReading.integer(request, "to")
        let format: DiffFormat
        switch request.query["format"] {
        case nil, "batch": format = .batch
        case "json-patch": format = .jsonPatch
        case let other?: throw .badRequest("format must be batch or json-patch, not \"\(other.prefix(40))\"")
        }
        let wait = try RequestReading.wait(request, cap: context.options.maxWaitSeconds)
        let cursor = try RequestReading.cursor(request) ?? context.pollCursor.interval(at: RouteContext.wallClock())
        // A revision the client names exists (another instance may have committed it): a cached head older than it
        // is read again from the store before the revision is judged.
        let list = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(id, atLeast: max(from, to ?? 0)) }
        for revision in [from, to ?? list.head.revision] where !context.app.repository.isServable(revision, head: list.head) {
            throw ServiceError.engine(context.app.repository.notServed(revision, head: list.head))
        }
        return DiffRequest(
            list: list, from: from, to: to ?? list.head.revision, explicitTo: to != nil, format: format, wait: wait, cursor: cursor,
            givenFormat: request.query["format"], givenWait: request.query["wait"], grant: grant)
    }

    private static func answer(_ diff: DiffRequest, _ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        let rendered = try ServiceError.mapping { () throws(EngineError) in try context.app.bodies.diff(diff.list, from: diff.from, to: diff.to, format: diff.format) }
        return respond(rendered, diff, request, context)
    }

    private static func respond(
        _ rendered: RenderedBody, _ diff: DiffRequest, _ request: HTTPRequest, _ context: RouteContext
    ) -> HTTPResponse {
        let opaque = "\(diff.from)-\(diff.to)\(diff.format == .jsonPatch ? "-patch" : "")"
        let poll = diff.explicitTo ? nil : Responses.PollAnswer(from: diff.from, to: diff.to, cursor: diff.cursor) { cursor in
            NextPollLink(listID: diff.list.head.id, from: diff.to, format: diff.givenFormat, wait: diff.givenWait, cursor: cursor)
        }
        return Responses.diff(rendered, etag: opaque, format: diff.format, poll: poll, request: request, context: context)
    }

    /// The poll `diff` answered up to `revision` of `list`, after it was held.
    private static func answered(_ diff: DiffRequest, list: LiveList, to revision: Int) -> DiffRequest {
        DiffRequest(
            list: list, from: diff.from, to: revision, explicitTo: false, format: diff.format, wait: 0, cursor: diff.cursor,
            givenFormat: diff.givenFormat, givenWait: diff.givenWait, grant: nil)
    }

    /// The diff from the poll's revision to whatever is current now (or the problem: the list may be gone).
    private static func answerToCurrent(_ diff: DiffRequest, _ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse {
        RouteContext.answer { () throws(ServiceError) in
            let current = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(diff.list.head.id) }
            return try answer(answered(diff, list: current, to: current.head.revision), request, context)
        }
    }

    /// Holds the poll for `hold` seconds (the end of its cursor's interval or its wait), or until the next write, the
    /// list's deletion, shutdown or its token's expiry (answered 401).
    ///
    /// The poll is parked first and the list's revision checked after: a write that committed in between either
    /// finds the poll parked (and wakes it) or is seen by the check, so no revision is missed. Runs on a worker.
    private static func park(_ diff: DiffRequest, hold: Double, _ request: HTTPRequest, _ responder: any HTTPResponding, _ context: RouteContext) {
        let poll = ParkedPoll(diff: diff, request: request, responder: responder, context: context, deadline: RouteContext.wallClock() + hold)
        let id = diff.list.head.id
        let token = context.app.hub.park(lists: [id]) { _, event in poll.tell(event) }
        guard let token else {
            responder.respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
            return
        }
        let moved: Bool
        do {
            let head = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.head(id) }
            moved = head?.revision != diff.from || head?.isDeleted == true
        } catch {
            moved = true
        }
        if moved {
            // Committed (or deleted) while the poll was being parked: answer now, unless the publish already did.
            if context.app.hub.unpark(token: token) { responder.respond(answerToCurrent(diff, request, context)) }
            return
        }
        responder.onClose { _ = context.app.hub.unpark(token: token) }
        let hold = context.access.holdTime(wait: hold, grant: diff.grant)
        context.app.after(hold.seconds) {
            guard context.app.hub.unpark(token: token) else { return }
            if hold.tokenExpires {
                responder.respond(Responses.problem(AccessControl.expired))
                return
            }
            // Nothing came: the empty diff from the current revision to itself.
            context.app.continueWork { poll.answerToCurrent() }
        }
    }

    /// What a parked poll needs to answer, in one object its wake-up and its timeout share (10,000 parked polls
    /// hold 10,000 of these, not two copies of each request).
    private final class ParkedPoll: Sendable {
        let diff: DiffRequest
        let request: HTTPRequest
        let responder: any HTTPResponding
        let context: RouteContext
        /// When the hold ends (wall clock, seconds), for a poll parked again after news it already had.
        let deadline: Double

        init(diff: DiffRequest, request: HTTPRequest, responder: any HTTPResponding, context: RouteContext, deadline: Double) {
            self.diff = diff
            self.request = request
            self.responder = responder
            self.context = context
            self.deadline = deadline
        }

        /// Parks the poll again for what is left of its hold: the hub told it of a revision it already has (an
        /// announcement from another instance that arrived after the poll read the head, or events published out
        /// of order), which must not answer it early with an empty diff.
        private func parkAgain() {
            context.app.continueWork { [self] in
                DiffRoutes.park(diff, hold: max(0, deadline - RouteContext.wallClock()), request, responder, context)
            }
        }

        /// Answers the diff from the poll's revision to whatever is current now.
        func answerToCurrent() {
            responder.respond(DiffRoutes.answerToCurrent(diff, request, context))
        }

        /// Answers for `event`, which the hub delivers once.
        func tell(_ event: ListEvent) {
            switch event {
            case .revision(let outcome, _) where outcome.document.revision <= diff.from:
                parkAgain()
            case .committedElsewhere(let revision, _) where revision <= diff.from:
                parkAgain()
            case .revision(let outcome, let batch):
                if outcome.previous.revision == diff.from, diff.format == .batch {
                    // The common case, and the one that fans out to thousands: the bytes rendered once at publish.
                    let woken = DiffRoutes.answered(diff, list: diff.list, to: outcome.document.revision)
                    responder.respond(DiffRoutes.respond(batch, woken, request, context))
                    return
                }
                context.app.continueWork { self.answerToCurrent() }
            case .committedElsewhere:
                context.app.continueWork { self.answerToCurrent() }
            case .deleted:
                responder.respond(Responses.problem(.notFound("the list \"\(diff.list.head.id)\" was deleted")))
            case .shutdown:
                responder.respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
            }
        }
    }
}
