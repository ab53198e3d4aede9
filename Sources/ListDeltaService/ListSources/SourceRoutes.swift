import HTTPServer
import ListDeltaCore

/// `PUT`, `GET` and `DELETE /v1/lists/{id}/source`.
struct SourceRoutes {
    let context: ServiceContext
    let sources: SourceService

    func register(in router: inout Router) {
        let context = self.context
        let sources = self.sources
        router.add(.PUT, "/v1/lists/{id}/source") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: "application/json") else { return }
            // The first fetch happens before the answer, on the source pool: a slow feed holds no writer.
            context.perform(responder, on: sources.pool) { () throws(ServiceError) in try Self.attach(request, context, sources) }
        }
        router.add(.GET, "/v1/lists/{id}/source") { request, responder in
            // A source may be attached to a list its first good fetch has yet to create.
            guard let id = context.readableList(request, responder, mustExist: false)?.id else { return }
            context.perform(responder) { () throws(ServiceError) in
                guard let source = try sources.source(id) else { throw .notFound("list \"\(id)\" has no source") }
                return Responses.json(200, SourceService.served(source), headers: ["Cache-Control": "no-store"])
            }
        }
        router.add(.DELETE, "/v1/lists/{id}/source") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: nil) else { return }
            context.perform(responder, on: context.writePool) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: nil)
                guard try sources.detach(id) else { throw .notFound("list \"\(id)\" has no source") }
                return HTTPResponse(status: 204, headers: ["Cache-Control": "no-store"])
            }
        }
    }

    private static func attach(_ request: HTTPRequest, _ context: ServiceContext, _ sources: SourceService) throws(ServiceError) -> HTTPResponse {
        let id = try WriteRoutes.admit(request, context, mediaType: "application/json")
        let settings = try SourceSettings(
            requestBody: try RequestReading.json(request, maximumDepth: context.configuration.maxDepth),
            minimumInterval: context.configuration.sourceMinInterval, maximumItems: context.configuration.effectiveSourceMaxItems)
        let attached = try sources.attach(id, settings: settings)
        var headers: HTTPHeaders = ["Cache-Control": "no-store"]
        if attached.created { headers["Location"] = "/v1/lists/\(id)/source" }
        return Responses.json(attached.created ? 201 : 200, SourceService.served(attached.source), headers: headers)
    }
}
