import HTTPServer
import ListDeltaApplication
import ListDeltaCore

/// `PUT`, `GET` and `DELETE /v1/lists/{id}/source`.
struct SourceRoutes {
    let context: RouteContext

    func register(in router: inout Router) {
        let context = self.context
        let sources = context.app.sources!
        router.add(.PUT, "/v1/lists/{id}/source") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: "application/json") else { return }
            // The first fetch happens before the answer, on the source pool: a slow feed holds no writer.
            context.perform(responder, on: sources.pool) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: "application/json")
                let body = try RequestReading.json(request, maximumDepth: context.options.maximumDepth)
                let attached = try ServiceError.mapping { () throws(ApplicationError) in try sources.attach(id, body: body) }
                var headers: HTTPHeaders = ["Cache-Control": "no-store"]
                if attached.created { headers["Location"] = "/v1/lists/\(id)/source" }
                return Responses.json(attached.created ? 201 : 200, attached.served, headers: headers)
            }
        }
        router.add(.GET, "/v1/lists/{id}/source") { request, responder in
            // A source may be attached to a list its first good fetch has yet to create.
            guard let id = context.readableList(request, responder, mustExist: false)?.id else { return }
            context.perform(responder) { () throws(ServiceError) in
                guard let served = try ServiceError.mapping({ () throws(ApplicationError) in try sources.served(id) }) else {
                    throw .notFound("list \"\(id)\" has no source")
                }
                return Responses.json(200, served, headers: ["Cache-Control": "no-store"])
            }
        }
        router.add(.DELETE, "/v1/lists/{id}/source") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: nil) else { return }
            context.perform(responder, on: context.app.pools.write) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: nil)
                guard try ServiceError.mapping({ () throws(ApplicationError) in try sources.detach(id) }) else {
                    throw .notFound("list \"\(id)\" has no source")
                }
                return HTTPResponse(status: 204, headers: ["Cache-Control": "no-store"])
            }
        }
    }
}
