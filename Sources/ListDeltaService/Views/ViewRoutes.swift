import HTTPServer
import ListDeltaCore

/// `PUT`, `GET` and `DELETE /v1/lists/{id}/view`.
struct ViewRoutes {
    let context: ServiceContext
    let views: ViewService

    func register(in router: inout Router) {
        let context = self.context
        let views = self.views
        router.add(.PUT, "/v1/lists/{id}/view") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: "application/json") else { return }
            context.perform(responder, on: context.writePool) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: "application/json")
                let configuration = context.configuration
                let body = try RequestReading.body(request, limit: configuration.maxDefinitionBytes)
                let attached = try views.attach(id, body: try RequestReading.json(body, maximumDepth: configuration.maxDepth)) {
                    base throws(ServiceError) in
                    // A view shows its base's items to whoever may read the view: defining one needs read access to
                    // the base as well, or a token that may write one list could read any other through it.
                    _ = try context.access.authorizeRead(request, list: base)
                }
                var headers: HTTPHeaders = ["Cache-Control": "no-store"]
                if attached.created { headers["Location"] = "/v1/lists/\(id)/view" }
                return Responses.json(attached.created ? 201 : 200, attached.served, headers: headers)
            }
        }
        router.add(.GET, "/v1/lists/{id}/view") { request, responder in
            // A view's row may be there before its list (an attach that failed to write its first revision).
            guard let id = context.readableList(request, responder, mustExist: false)?.id else { return }
            context.perform(responder) { () throws(ServiceError) in
                guard let view = try views.view(id) else { throw .notFound("list \"\(id)\" is not a view") }
                return Responses.json(200, ViewService.served(view), headers: ["Cache-Control": "no-cache"])
            }
        }
        router.add(.DELETE, "/v1/lists/{id}/view") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: nil) else { return }
            context.perform(responder, on: context.writePool) { () throws(ServiceError) in
                let id = try WriteRoutes.admit(request, context, mediaType: nil)
                guard try views.detach(id) else { throw .notFound("list \"\(id)\" is not a view") }
                return HTTPResponse(status: 204, headers: ["Cache-Control": "no-store"])
            }
        }
    }
}
