import ListDeltaApplication
import HTTPServer
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Logging
import TextFormats

/// `PUT`, `PATCH` and `DELETE /v1/lists/{id}`.
struct WriteRoutes {
    let context: RouteContext

    func register(in router: inout Router) {
        let context = self.context
        router.add(.PUT, "/v1/lists/{id}") { request, responder in
            guard Self.admitOnLoop(request, responder, context, mediaType: "application/json") else { return }
            Self.performWrite(request, responder, context) { answer throws(ServiceError) in try Self.put(request, context, answer: answer) }
        }
        router.add(.PATCH, "/v1/lists/{id}") { request, responder in
            guard Self.admitOnLoop(request, responder, context, mediaType: "application/json-patch+json") else { return }
            Self.performWrite(request, responder, context) { answer throws(ServiceError) in try Self.patch(request, context, answer: answer) }
        }
        router.add(.DELETE, "/v1/lists/{id}") { request, responder in
            guard Self.admitOnLoop(request, responder, context, mediaType: nil) else { return }
            context.admit(responder, on: context.app.pools.write) {
                responder.respond(IdempotentWrites.answer(request, context) { _ throws(ServiceError) in try Self.delete(request, context) })
            }
        }
    }

    /// What a write route makes the answer it keeps from, for a request with an `Idempotency-Key`: its outcome.
    typealias Answering = (WriteOutcome) -> AnswerToKeep

    /// Runs `write` on the write pool and answers with its outcome (or its problem), under the rules of its
    /// `Idempotency-Key` when it has one (``IdempotentWrites``): `write` gets what makes the answer kept with the
    /// revision, to pass to ``RouteContext/write(_:origin:preconditions:mustExist:answer:build:)``. The outcome is let go only
    /// after the answer is handed to the loop: when the document cache has already evicted the replaced revision,
    /// the outcome holds its last reference (100,000 items for a large list, some 10 ms to free), and freeing it
    /// is then no part of this write's latency (the worker still spends it before its next job).
    static func performWrite(
        _ request: HTTPRequest, _ responder: any HTTPResponding, _ context: RouteContext,
        _ write: @escaping @Sendable (_ answer: Answering?) throws(ServiceError) -> WriteOutcome
    ) {
        context.admit(responder, on: context.app.pools.write) {
            var outcome: WriteOutcome?
            responder.respond(IdempotentWrites.answer(request, context) { keeping throws(ServiceError) in
                let written = try write(keeping.map { keep in { outcome in keep(response(outcome, context)) } })
                outcome = written
                return response(written, context)
            })
            withExtendedLifetime(outcome) {}
        }
    }

    /// The checks every write passes on the loop, before it takes a worker and before its body is inflated or
    /// read: a request refused here costs no pool slot and no inflation. `false` after answering the problem.
    static func admitOnLoop(
        _ request: HTTPRequest, _ responder: any HTTPResponding, _ context: RouteContext, mediaType: String?
    ) -> Bool {
        do throws(ServiceError) {
            _ = try admit(request, context, mediaType: mediaType)
            return true
        } catch {
            responder.respond(Responses.problem(error))
            return false
        }
    }

    /// Checks what every write checks, in the order a client can fix them: id, token, media type, idempotency key.
    static func admit(_ request: HTTPRequest, _ context: RouteContext, mediaType: String?) throws(ServiceError) -> String {
        let id = try RequestReading.listID(request)
        try context.access.authorizeWrite(request, list: id)
        if let mediaType { try RequestReading.requireMediaType(request, mediaType) }
        _ = try IdempotentWrites.key(request)
        return id
    }

    private static func put(_ request: HTTPRequest, _ context: RouteContext, answer: Answering?) throws(ServiceError) -> WriteOutcome {
        let id = try admit(request, context, mediaType: "application/json")
        let preconditions = try RequestReading.preconditions(request)
        let body = try RequestReading.body(request)
        let maximumDepth = context.options.maximumDepth
        // Validate before taking the list's lock: a bad body changes nothing and holds up no one. Read straight
        // into items where it can be; else (every invalid body included) parsed, then validated, to word the error.
        let validated: ListDocument
        if let typed = context.app.repository.readDocument(json: body, listID: id, revision: 0, maximumDepth: maximumDepth) {
            validated = typed
        } else {
            let json = try RequestReading.json(body, maximumDepth: maximumDepth)
            validated = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.makeDocument(from: json, listID: id, revision: 0) }
        }
        return try context.write(id, origin: .put, preconditions: preconditions, answer: answer) { _, revision throws(ServiceError) in
            try context.refuseDirectWrite(id)
            var document = validated
            document.revision = revision
            return document
        }
    }

    private static func patch(_ request: HTTPRequest, _ context: RouteContext, answer: Answering?) throws(ServiceError) -> WriteOutcome {
        let id = try admit(request, context, mediaType: "application/json-patch+json")
        let preconditions = try RequestReading.preconditions(request)
        let patch: JSONPatch
        do {
            patch = try JSONPatch(
                json: try RequestReading.json(request, maximumDepth: context.options.maximumDepth),
                maximumOperations: context.options.maxPatchOperations)
        } catch let error as JSONPatchError {
            if case .tooManyOperations = error { throw .patchFailed(error) }
            throw .badRequest(error.description)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw .badRequest("\(error)")
        }
        let repository = context.app.repository
        return try context.write(id, origin: .patch, preconditions: preconditions, mustExist: true, answer: answer) { current, revision throws(ServiceError) in
            guard let current else { throw .notFound("there is no list \"\(id)\" to patch") }
            try context.refuseDirectWrite(id)
            // Item edits go straight to the typed document; anything else (and every failure, so it is worded
            // exactly) takes the general path: the document as JSON, patched, read back and validated.
            if var document = patch.applyToItems(of: current, limits: repository.documentLimits) {
                document.revision = revision
                return document
            }
            let patched: JSONValue
            do throws(JSONPatchError) {
                patched = try patch.apply(to: current.jsonValue, copyBudget: repository.documentLimits.maximumDocumentBytes)
            } catch {
                throw .patchFailed(error)
            }
            return try ServiceError.mapping { () throws(EngineError) in try repository.makeDocument(from: patched, listID: id, revision: revision) }
        }
    }

    private static func delete(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        let id = try admit(request, context, mediaType: nil)
        let preconditions = try RequestReading.preconditions(request)
        try ServiceError.mapping { () throws(ApplicationError) in try context.app.delete(id, preconditions: preconditions) }
        return HTTPResponse(status: 204)
    }

    /// `{"id","revision","diff"}`: 201 on create (with `Location`), else 200. The diff is the write's own rendering,
    /// embedded as bytes (gzip included), not rendered again.
    static func response(_ outcome: WriteOutcome, _ context: RouteContext) -> HTTPResponse {
        var prefix: [UInt8] = []
        JSONString.append(outcome.document.id, to: &prefix)
        let body = outcome.renderedDiff.wrapped(
            prefix: "{\"id\":" + String(decoding: prefix, as: UTF8.self) + ",\"revision\":\(outcome.document.revision),\"diff\":",
            suffix: "}")
        var headers: HTTPHeaders = ["ETag": EntityTag.fieldValue(of: String(outcome.document.revision), gzipped: false), "Cache-Control": "no-store", "Content-Type": "application/json"]
        if outcome.created { headers["Location"] = "/v1/lists/\(outcome.document.id)" }
        return HTTPResponse(status: outcome.created ? 201 : 200, headers: headers, body: body.body)
    }
}
