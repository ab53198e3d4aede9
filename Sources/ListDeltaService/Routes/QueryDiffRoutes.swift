import HTTPServer
import ListDeltaAccess
import ListDeltaApplication
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Metrics
import Synchronization

/// `GET /v1/lists/{id}/diff` with a live query (`q`, `fromQuery`; API.md "Live queries"): the diff between two
/// results of queries over the list, and the poll of one query, held until a base write changes its result.
///
/// A poll's answer is always the diff from the result at `from` to the result at the base revision current when it
/// is answered (its `to`): empty when they are equal, so a follower whose result never changes still moves forward
/// with the base. `DiffRoutes` hands a request here when it carries `fromQuery`, or a `q` that is not `{}`.
enum QueryDiffRoutes {
    /// A checked diff request with a query.
    struct Request: Sendable {
        let base: String
        /// The query whose result the diff ends at (`q`; the whole list when absent).
        let query: LiveQuery
        /// The query whose result the diff starts from (`fromQuery`, answered at once; else `query`).
        let fromQuery: LiveQuery?
        let from: Int
        /// `to`, when the request named it: the diff between two fixed revisions.
        let to: Int?
        let format: DiffFormat
        let wait: Double
        let cursor: Int
        let givenFormat: String?
        let givenWait: String?
        let grant: Grant?
    }

    /// The request's `q` and `fromQuery`, read before anything else about the list (a malformed one is 400
    /// whether or not the list or its revisions exist).
    struct Queries: Sendable {
        let query: LiveQuery?
        let fromQuery: LiveQuery?

        init(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) {
            let base = try RequestReading.listID(request)
            query = try QueryReading.query(request, base: base, context)
            fromQuery = try QueryReading.query(request, "fromQuery", base: base, context)
        }

        /// Whether they make the request one about queries: a `fromQuery`, or a `q` that is not `{}` (which is a
        /// plain diff).
        var areQueries: Bool { fromQuery != nil || query?.isWholeList == false }
    }

    /// The request about queries (`nil`: `q` is `{}` or absent and there is no `fromQuery`, a plain diff).
    static func request(
        _ queries: Queries, base: String, from: Int, to: Int?, format: DiffFormat, wait: Double, cursor: Int, grant: Grant?,
        _ request: HTTPRequest, _ context: RouteContext
    ) -> Request? {
        guard queries.areQueries else { return nil }
        return Request(
            base: base, query: queries.query ?? QueryReading.wholeList(base, context), fromQuery: queries.fromQuery, from: from, to: to,
            format: format, wait: wait, cursor: cursor, givenFormat: request.query["format"], givenWait: request.query["wait"], grant: grant)
    }

    /// Answers `diff`, or holds it when it is a poll whose result has not changed.
    /// - Parameter hold: How long a poll may be held (0: answered at once).
    static func answer(_ diff: Request, hold: Double, head: ListHead, _ request: HTTPRequest, _ responder: any HTTPResponding, _ context: RouteContext) {
        if diff.fromQuery != nil || diff.to != nil || hold <= 0 {
            responder.respond(RouteContext.answer { () throws(ServiceError) in try respond(diff, to: diff.to ?? head.revision, head: head, request, context) })
            return
        }
        do throws(ServiceError) {
            if try hasChanged(diff, head: head, context) {
                responder.respond(try respond(diff, to: head.revision, head: head, request, context))
                return
            }
            let held = try ServiceError.mapping { () throws(EngineError) in try context.app.queries.hold(diff.query) }
            QueryPoll(diff: diff, held: held, request: request, responder: responder, context: context, deadline: RouteContext.wallClock() + hold)
                .park(for: hold)
        } catch {
            responder.respond(Responses.problem(error))
        }
    }

    /// Whether the query's result at the base's revision `head` differs from its result at the poll's `from`.
    private static func hasChanged(_ diff: Request, head: ListHead, _ context: RouteContext) throws(ServiceError) -> Bool {
        guard head.revision != diff.from else { return false }
        let old = try QueryReading.result(diff.query, at: diff.from, head: head, context)
        let new = try QueryReading.result(diff.query, at: head.revision, head: head, context)
        return !old.hasSameContent(as: new)
    }

    /// The diff from the request's `from` to `to`: immutable between fixed revisions, else a poll's answer naming
    /// the next poll with the canonical `q`.
    private static func respond(_ diff: Request, to: Int, head: ListHead, _ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        let old = diff.fromQuery ?? diff.query
        let rendered = try QueryReading.diff(from: old, at: diff.from, to: diff.query, at: to, format: diff.format, head: head, context)
        let queries = diff.fromQuery.map { [$0, diff.query] } ?? [diff.query]
        let opaque = QueryReading.entityTag("\(diff.from)-\(to)", queries, patch: diff.format == .jsonPatch)
        // The next poll follows `q` alone, canonical, never `fromQuery`.
        let poll = diff.to != nil ? nil : Responses.PollAnswer(from: diff.from, to: to, cursor: diff.cursor) { cursor in
            NextPollLink(
                listID: diff.base, from: to, format: diff.givenFormat, query: diff.query.isWholeList ? nil : diff.query.percentEncoded,
                wait: diff.givenWait, cursor: cursor)
        }
        return Responses.diff(rendered, etag: opaque, format: diff.format, poll: poll, request: request, context: context)
    }

    /// The poll's answer at the base's current revision (or the problem: the base may be gone).
    fileprivate static func answerToCurrent(_ diff: Request, _ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse {
        RouteContext.answer { () throws(ServiceError) in
            let live = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(diff.base) }
            return try respond(diff, to: live.head.revision, head: live.head, request, context)
        }
    }

    /// A held poll of a query: parked in the hub under the query's key (the query keeper publishes there only when
    /// its result changed), holding the query until it is answered, once.
    private final class QueryPoll: Sendable {
        let diff: Request
        let held: QueryKeeper.Hold
        let request: HTTPRequest
        let responder: any HTTPResponding
        let context: RouteContext
        let deadline: Double
        private let answered = Atomic(false)
        /// When the keeper told the poll its result changed: its answer is timed from there.
        private let wokenAt = Mutex<ContinuousClock.Instant?>(nil)

        init(diff: Request, held: QueryKeeper.Hold, request: HTTPRequest, responder: any HTTPResponding, context: RouteContext, deadline: Double) {
            self.diff = diff
            self.held = held
            self.request = request
            self.responder = responder
            self.context = context
            self.deadline = deadline
        }

        /// Parks the poll for `hold` seconds, then checks the result again: a base write that came between the
        /// check before and the parking is either published to the poll or seen by this check.
        func park(for hold: Double) {
            let token = context.app.hub.park(lists: [held.hubKey]) { [self] _, event in tell(event) }
            guard let token else {
                respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
                return
            }
            let changed: Bool
            do {
                let head = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.head(diff.base) }
                if let head, !head.isDeleted { changed = try QueryDiffRoutes.hasChanged(diff, head: head, context) } else { changed = true }
            } catch {
                changed = true
            }
            if changed {
                if context.app.hub.unpark(token: token) { respond(QueryDiffRoutes.answerToCurrent(diff, request, context)) }
                return
            }
            responder.onClose { [self] in
                if context.app.hub.unpark(token: token) { finish() }
            }
            let timing = context.access.holdTime(wait: hold, grant: diff.grant)
            context.app.after(timing.seconds) { [self] in
                guard context.app.hub.unpark(token: token) else { return }
                if timing.tokenExpires {
                    respond(Responses.problem(AccessControl.expired))
                    return
                }
                // Nothing changed the result: the empty diff to the base's current revision.
                context.app.continueWork { [self] in answerNow() }
            }
        }

        /// Answers the diff to the base's current revision, or parks again for what is left of the hold when the
        /// result is as it was (a wake by a change undone since).
        private func answerNow() {
            let left = deadline - RouteContext.wallClock()
            if left > 0.05, let head = try? context.app.repository.head(diff.base), !head.isDeleted,
                (try? QueryDiffRoutes.hasChanged(diff, head: head, context)) == false
            {
                park(for: left)
                return
            }
            respond(QueryDiffRoutes.answerToCurrent(diff, request, context))
        }

        private func tell(_ event: ListEvent) {
            switch event {
            case .revision, .committedElsewhere:
                wokenAt.withLock { $0 = $0 ?? .now }
                context.app.continueWork { [self] in answerNow() }
            case .deleted:
                respond(Responses.problem(.notFound("the list \"\(diff.base)\" was deleted")))
            case .shutdown:
                respond(Responses.problem(.unavailable("the server is shutting down; poll again")))
            }
        }

        private func respond(_ response: HTTPResponse) {
            finish()
            responder.respond(response)
            if let woken = wokenAt.withLock({ $0 }) {
                Timer(label: "listdelta_query_answer_seconds").record(duration: ContinuousClock.now - woken)
            }
        }

        /// Releases the query, once.
        private func finish() {
            if !answered.exchange(true, ordering: .relaxed) { context.app.queries.release(held) }
        }
    }
}
