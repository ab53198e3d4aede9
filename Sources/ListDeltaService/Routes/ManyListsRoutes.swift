import HTTPServer
import ListDeltaAccess
import TextFormats

/// `GET /v1/events?lists=a:5,b:0` and `GET /v1/diffs?lists=a:5,b:0[&wait=S]`: many lists over one connection.
struct ManyListsRoutes {
    let context: RouteContext

    func register(in router: inout Router) {
        let context = self.context
        router.add(.GET, "/v1/events") { request, responder in
            context.admit(responder) {
                let cursor: ListCursor
                let grant: Grant?
                do throws(ServiceError) {
                    (cursor, grant) = try Self.cursor(request, context, resumable: true)
                } catch {
                    responder.respond(Responses.problem(error))
                    return
                }
                guard let stream = responder.startStream(status: 200, headers: EventRoutes.streamHeaders) else { return }
                let events = EventStream(.many, cursor: cursor, stream: stream, context: context)
                responder.onClose { events.end() }
                events.start()
                events.end(whenExpires: grant)
            }
        }
        router.add(.GET, "/v1/diffs") { request, responder in
            context.admit(responder) {
                let cursor: ListCursor
                let grant: Grant?
                let wait: Double
                let moves: ManyListsPoll.Moves
                do throws(ServiceError) {
                    (cursor, grant) = try Self.cursor(request, context, resumable: false)
                    wait = try RequestReading.wait(request, cap: context.options.maxWaitSeconds)
                    moves = try ManyListsPoll.moves(of: cursor, context)
                } catch {
                    responder.respond(Responses.problem(error))
                    return
                }
                if moves.isEmpty, wait > 0 {
                    ManyListsPoll(cursor: cursor, responder: responder, context: context).park(wait: wait, grant: grant)
                } else {
                    responder.respond(moves.response)
                }
            }
        }
    }

    /// The `lists` of the request, each checked readable (401 before anything is parsed, 403 naming the first
    /// list not covered), with the grant that allowed them; for a stream, resumed from `Last-Event-ID` when a
    /// reconnecting client sends it.
    private static func cursor(
        _ request: HTTPRequest, _ context: RouteContext, resumable: Bool
    ) throws(ServiceError) -> (ListCursor, Grant?) {
        let grant = try context.access.readGrant(request)
        try QueryReading.refuse(request)
        let maximum = context.options.maxListsPerRequest
        guard let lists = request.query["lists"] else {
            throw .badRequest("lists is required: the lists to follow, as id:revision, comma-separated")
        }
        var cursor = try ListCursor(parsing: lists, maximum: maximum)
        if resumable, let header = request.headers["Last-Event-ID"] {
            cursor.resume(from: try ListCursor(parsing: String(header.trimmingSpaces()), maximum: maximum, name: "Last-Event-ID"))
        }
        try AccessControl.require(grant, covers: cursor.ids)
        return (cursor, grant)
    }
}
