import ListDeltaApplication
import HTTPServer
import ListDeltaCore
import ListDeltaEngine
import TextFormats

/// `GET /v1/lists/{id}/events?from=N[&q=Q]` (or `Last-Event-ID`); with a live query `q`, the events are its
/// result's, sent only for base revisions that change it.
struct EventRoutes {
    let context: RouteContext

    /// An event stream's head: never cached, never buffered by a proxy (`X-Accel-Buffering: no` for nginx).
    static let streamHeaders: HTTPHeaders = [
        "Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
    ]

    func register(in router: inout Router) {
        let context = self.context
        router.add(.GET, "/v1/lists/{id}/events") { request, responder in
            guard let readable = context.readableList(request, responder) else { return }
            let id = readable.id
            context.admit(responder) {
                let from: Int
                let query: LiveQuery?
                do throws(ServiceError) {
                    if request.query["fromQuery"] != nil {
                        throw .invalidParameter("fromQuery is taken by GET /v1/lists/{id}/diff only", pointer: "/fromQuery")
                    }
                    query = try QueryReading.partialQuery(request, base: id, context)
                    // `from` is checked even when `Last-Event-ID` (a reconnecting client's) takes precedence.
                    let fromQuery = try RequestReading.integer(request, "from") ?? 0
                    if let header = request.headers["Last-Event-ID"] {
                        from = try RequestReading.integer(String(header.trimmingSpaces()), name: "Last-Event-ID", maximum: Int(Int32.max))
                    } else {
                        from = fromQuery
                    }
                    _ = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(id) }
                } catch {
                    responder.respond(Responses.problem(error))
                    return
                }
                let held: QueryKeeper.Hold?
                do throws(EngineError) {
                    held = try query.map { query throws(EngineError) in try context.app.queries.hold(query) }
                } catch {
                    responder.respond(Responses.problem(.engine(error)))
                    return
                }
                guard let stream = responder.startStream(status: 200, headers: Self.streamHeaders) else {
                    if let held { context.app.queries.release(held) }
                    return
                }
                let events = EventStream(.single, cursor: ListCursor(id: id, revision: from), stream: stream, context: context, query: held)
                responder.onClose { events.end() }
                events.start()
                events.end(whenExpires: readable.grant)
            }
        }
    }
}
