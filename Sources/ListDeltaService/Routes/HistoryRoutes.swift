import ListDeltaApplication
import HTTPServer
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import TextFormats

/// `GET /v1/lists/{id}/revisions` (the history) and `POST /v1/lists/{id}/revert` (undo and redo).
struct HistoryRoutes {
    let context: RouteContext

    func register(in router: inout Router) {
        let context = self.context
        router.add(.GET, "/v1/lists/{id}/revisions") { request, responder in
            guard context.readableList(request, responder) != nil else { return }
            context.perform(responder) { () throws(ServiceError) in try Self.history(request, context) }
        }
        router.add(.POST, "/v1/lists/{id}/revert") { request, responder in
            guard WriteRoutes.admitOnLoop(request, responder, context, mediaType: "application/json") else { return }
            WriteRoutes.performWrite(request, responder, context) { answer throws(ServiceError) in try Self.revert(request, context, answer: answer) }
        }
    }

    // MARK: - History

    private static func history(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        let id = try RequestReading.listID(request)
        let before = try RequestReading.integer(request, "before")
        let limit = try RequestReading.limit(request)
        let page = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.history(id, before: before, limit: limit) }
        var body = JSONObject()
        body["revisions"] = .array(page.revisions.map(Self.json))
        body["oldestRevision"] = .number(JSONNumber(page.head.oldestRevision))
        body["next"] = page.hasMore ? page.revisions.last.map { .number(JSONNumber($0.revision)) } ?? .null : .null
        return Responses.json(200, .object(body), headers: ["Cache-Control": "no-cache"])
    }

    /// `{"revision","committedAt","by","sections","items","changes"}`; `null` where a revision written before
    /// summaries were kept has none.
    private static func json(_ summary: RevisionSummary) -> JSONValue {
        var object = JSONObject()
        object["revision"] = .number(JSONNumber(summary.revision))
        object["committedAt"] = summary.committedAtMilliseconds.map { .string(RFC3339.format(milliseconds: $0)) } ?? .null
        object["by"] = summary.origin.map(Self.json) ?? .null
        object["sections"] = summary.sectionCount.map { .number(JSONNumber($0)) } ?? .null
        object["items"] = summary.itemCount.map { .number(JSONNumber($0)) } ?? .null
        if let sections = summary.sectionChanges, let items = summary.itemChanges {
            var changes = JSONObject()
            changes["sections"] = json(sections)
            changes["items"] = json(items)
            object["changes"] = .object(changes)
        } else {
            object["changes"] = .null
        }
        return .object(object)
    }

    private static func json(_ origin: RevisionOrigin) -> JSONValue {
        var object = JSONObject()
        switch origin {
        case .put: object["op"] = "put"
        case .patch: object["op"] = "patch"
        case .source: object["op"] = "source"
        case .revert(let to):
            object["op"] = "revert"
            object["to"] = .number(JSONNumber(to))
        case let .view(base, revision):
            object["op"] = "view"
            object["of"] = .string(base)
            object["revision"] = .number(JSONNumber(revision))
        }
        return .object(object)
    }

    private static func json(_ counts: OperationCounts) -> JSONValue {
        var object = JSONObject()
        object["deleted"] = .number(JSONNumber(counts.deleted))
        object["inserted"] = .number(JSONNumber(counts.inserted))
        object["moved"] = .number(JSONNumber(counts.moved))
        object["updated"] = .number(JSONNumber(counts.updated))
        return .object(object)
    }

    // MARK: - Revert

    private static func revert(_ request: HTTPRequest, _ context: RouteContext, answer: WriteRoutes.Answering?) throws(ServiceError) -> WriteOutcome {
        let id = try WriteRoutes.admit(request, context, mediaType: "application/json")
        let preconditions = try RequestReading.preconditions(request)
        // Read before taking the list's lock: a bad body changes nothing and holds up no one.
        let target = try Self.target(try RequestReading.json(request, maximumDepth: context.options.maximumDepth))
        let repository = context.app.repository
        return try context.write(id, origin: .revert(to: target), preconditions: preconditions, mustExist: true, answer: answer) { current, revision throws(ServiceError) in
            guard let current else { throw .notFound("there is no list \"\(id)\"") }
            let head = try ServiceError.mapping { () throws(EngineError) in try repository.head(id, atLeast: current.revision) }
            guard let head, !head.isDeleted else { throw .notFound("there is no list \"\(id)\"") }
            try context.refuseDirectWrite(id)
            // 0 is servable as a diff's start (the empty list) but is no revision to restore.
            guard target != 0, repository.isServable(target, head: head) else { throw ServiceError.engine(repository.notServed(target, head: head)) }
            var document = target == current.revision ? current : try ServiceError.mapping { () throws(EngineError) in try repository.document(id, revision: target, head: head) }
            document.revision = revision
            return document
        }
    }

    /// The `to` of a revert body `{"to": N}`.
    private static func target(_ body: JSONValue) throws(ServiceError) -> Int {
        guard case .object(let object) = body else { throw .badRequest("a revert body is a JSON object {\"to\": N}") }
        for (key, _) in object.entries where key != "to" {
            throw .badRequest("a revert body has only \"to\"; \"\(key.prefix(40))\" is not known")
        }
        guard let to = object["to"] else { throw .badRequest("\"to\" is required: the revision whose content to restore") }
        guard case .number(let number) = to, let value = number.intValue, value >= 0, value <= Int(Int32.max) else {
            throw .badRequest("\"to\" must be a whole number of a revision, not \(String(decoding: JSONWriter.bytes(of: to), as: UTF8.self).prefix(40))")
        }
        return value
    }
}
