import HTTPServer
import ListDeltaApplication
import ListDeltaCore

/// `PUT`, `GET` and `DELETE /v1/lists/{id}/view`.
struct ViewRoutes {
    let context: RouteContext

    func register(in router: inout Router) {
        let context = self.context
        let views = context.app.views!
        router.add(.PUT, "/v1/lists/{id}/view") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: "application/json") else { return }
            context.perform(responder, on: context.app.pools.write) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: "application/json")
                let body = try RequestReading.body(request, limit: context.options.maxDefinitionBytes)
                let json = try RequestReading.json(body, maximumDepth: context.options.maximumDepth)
                let definition = try ServiceError.mapping { () throws(ApplicationError) in try views.definition(from: json, for: id) }
                // A view shows its base's items to whoever may read the view: defining one needs read access to the
                // base as well, or a token that may write one list could read any other through it.
                _ = try context.access.authorizeRead(request, list: definition.base)
                let attached = try ServiceError.mapping { () throws(ApplicationError) in try views.attach(id, definition: definition) }
                var headers: HTTPHeaders = ["Cache-Control": "no-store"]
                if attached.created { headers["Location"] = "/v1/lists/\(id)/view" }
                return Responses.json(attached.created ? 201 : 200, attached.served, headers: headers)
            }
        }
        router.add(.GET, "/v1/lists/{id}/view") { request, responder in
            // A view's row may be there before its list (an attach that failed to write its first revision).
            guard let id = context.readableList(request, responder, mustExist: false)?.id else { return }
            context.perform(responder) { () throws(ServiceError) in
                guard let served = try ServiceError.mapping({ () throws(ApplicationError) in try views.served(id) }) else {
                    throw .notFound("list \"\(id)\" is not a view")
                }
                return Responses.json(200, served, headers: ["Cache-Control": "no-cache"])
            }
        }
        router.add(.DELETE, "/v1/lists/{id}/view") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: nil) else { return }
            context.perform(responder, on: context.app.pools.write) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: nil)
                guard try ServiceError.mapping({ () throws(ApplicationError) in try views.detach(id) }) else {
                    throw .notFound("list \"\(id)\" is not a view")
                }
                return HTTPResponse(status: 204, headers: ["Cache-Control": "no-store"])
            }
        }
    }
}
