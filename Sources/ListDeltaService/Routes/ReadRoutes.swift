import ListDeltaApplication
import HTTPServer
import ListDeltaAccess
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage

/// `GET /v1/lists`, `/v1/lists/{id}` (with `q`, a live query's result), `/sections`, `/sections/{index}/items`.
struct ReadRoutes {
    let context: RouteContext

    func register(in router: inout Router) {
        let context = self.context
        router.add(.GET, "/v1/lists") { request, responder in
            context.perform(responder) { () throws(ServiceError) in try Self.index(request, context) }
        }
        router.add(.GET, "/v1/lists/{id}") { request, responder in
            guard let id = context.readableList(request, responder)?.id else { return }
            // The current document, rendered and in memory, is answered on the loop: no thread hop.
            if request.query["revision"] == nil, request.query["q"] == nil, request.query["fromQuery"] == nil, let fast = Self.cachedCurrent(id, request, context) {
                responder.respond(fast)
                return
            }
            context.perform(responder) { () throws(ServiceError) in try Self.document(request, context) }
        }
        router.add(.GET, "/v1/lists/{id}/sections") { request, responder in
            guard context.readableList(request, responder) != nil else { return }
            context.perform(responder) { () throws(ServiceError) in try Self.sections(request, context) }
        }
        router.add(.GET, "/v1/lists/{id}/sections/{index}/items") { request, responder in
            guard context.readableList(request, responder) != nil else { return }
            context.perform(responder) { () throws(ServiceError) in try Self.items(request, context) }
        }
    }

    private static func index(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        let grant = try context.access.readGrant(request)
        let limit = try RequestReading.limit(request)
        let page = try coveredLists(after: request.query["after"], limit: limit, grant: grant, context)
        let lists: [JSONValue] = page.lists.map { head in
            var object = JSONObject()
            object["id"] = .string(head.id)
            object["kind"] = .string(head.kind)
            object["revision"] = .number(JSONNumber(head.revision))
            object["sections"] = .number(JSONNumber(head.sectionCount))
            object["items"] = .number(JSONNumber(head.itemCount))
            return .object(object)
        }
        var body = JSONObject()
        body["lists"] = .array(lists)
        body["next"] = page.more ? page.lists.last.map { .string($0.id) } ?? .null : .null
        return Responses.json(200, .object(body), headers: ["Cache-Control": "no-cache"])
    }

    /// A page of the lists `grant` covers (every list when it is `nil` or a static token's), in id order: pages
    /// of the store are read and filtered until `limit` are found or the store has no more.
    /// - Complexity: O(*n*) store rows for *n* lists past `after` in the worst case (a token covering few).
    private static func coveredLists(
        after: String?, limit: Int, grant: Grant?, _ context: RouteContext
    ) throws(ServiceError) -> (lists: [ListHead], more: Bool) {
        guard let grant, !grant.coversEveryList else {
            let page = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.lists(after: after, limit: limit) }
            return (page.lists, page.more)
        }
        var covered: [ListHead] = []
        var cursor = after
        while true {
            let page = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.lists(after: cursor, limit: 1_000) }
            for head in page.lists where grant.covers(head.id) {
                if covered.count == limit { return (covered, true) }
                covered.append(head)
            }
            guard page.more, let last = page.lists.last else { return (covered, false) }
            cursor = last.id
        }
    }

    /// The current document from memory only (the loop's answer), or `nil` when anything is not in memory.
    private static func cachedCurrent(_ id: String, _ request: HTTPRequest, _ context: RouteContext) -> HTTPResponse? {
        guard let head = context.app.repository.cachedHead(id), !head.isDeleted,
            let rendered = context.app.bodies.cachedDocument(id, revision: head.revision)
        else { return nil }
        return Responses.representation(
            rendered, etag: String(head.revision), contentType: "application/json", cacheControl: context.currentDocumentCacheControl, request: request)
    }

    private static func document(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        let requested = try RequestReading.integer(request, "revision")
        let id = try RequestReading.listID(request)
        if request.query["fromQuery"] != nil {
            throw .invalidParameter("fromQuery is taken by GET /v1/lists/{id}/diff only", pointer: "/fromQuery")
        }
        let query = try QueryReading.partialQuery(request, base: id, context)
        let list = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(id, atLeast: requested) }
        if let query { return try queryDocument(query, at: requested, of: list, request, context) }
        guard let revision = requested, revision != list.head.revision else {
            return Responses.representation(
                context.app.bodies.document(list.document), etag: String(list.head.revision), contentType: "application/json",
                cacheControl: context.currentDocumentCacheControl, request: request)
        }
        guard revision >= 1 else { throw .badRequest("revision must be at least 1") }
        guard context.app.repository.isServable(revision, head: list.head) else { throw ServiceError.engine(context.app.repository.notServed(revision, head: list.head)) }
        // A revision's document never changes (revision numbers are never reused): rendered once, it is not rebuilt.
        let rendered: RenderedBody
        if let cached = context.app.bodies.cachedDocument(list.head.id, revision: revision) {
            rendered = cached
        } else {
            rendered = context.app.bodies.document(try ServiceError.mapping { () throws(EngineError) in
                try context.app.repository.document(list.head.id, revision: revision, head: list.head)
            })
        }
        return Responses.representation(
            rendered, etag: String(revision), contentType: "application/json", cacheControl: context.immutableCacheControl,
            request: request)
    }

    /// The live query's result at `requested` (the base's current revision when `nil`) as a document.
    private static func queryDocument(
        _ query: LiveQuery, at requested: Int?, of list: LiveList, _ request: HTTPRequest, _ context: RouteContext
    ) throws(ServiceError) -> HTTPResponse {
        let revision = requested ?? list.head.revision
        let isCurrent = revision == list.head.revision
        if !isCurrent {
            guard revision >= 1 else { throw .badRequest("revision must be at least 1") }
            guard context.app.repository.isServable(revision, head: list.head) else { throw ServiceError.engine(context.app.repository.notServed(revision, head: list.head)) }
        }
        let rendered = try QueryReading.document(query, at: revision, head: list.head, context)
        return Responses.representation(
            rendered, etag: QueryReading.entityTag(String(revision), [query]), contentType: "application/json",
            cacheControl: isCurrent ? context.currentDocumentCacheControl : context.immutableCacheControl, request: request)
    }

    private static func sections(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        try QueryReading.refuse(request)
        let id = try RequestReading.listID(request)
        let list = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(id) }
        let provider = SectionDataProvider(sections: list.document.sections)
        var body = JSONObject()
        body["revision"] = .number(JSONNumber(list.head.revision))
        body["oldestRevision"] = .number(JSONNumber(list.head.oldestRevision))
        body["sections"] = .array(list.document.sections.map { section in
            var object = JSONObject()
            object["id"] = .string(section.id)
            object["title"] = section.header.title.map(JSONValue.string) ?? .null
            object["indexTitle"] = section.header.indexTitle.map(JSONValue.string) ?? .null
            object["count"] = .number(JSONNumber(section.items.count))
            return .object(object)
        })
        body["sectionIndexTitles"] = .array(provider.sectionIndexTitles.map(JSONValue.string))
        return Responses.json(200, .object(body), headers: ["ETag": EntityTag.fieldValue(of: String(list.head.revision), gzipped: false), "Cache-Control": "no-cache"])
    }

    private static func items(_ request: HTTPRequest, _ context: RouteContext) throws(ServiceError) -> HTTPResponse {
        try QueryReading.refuse(request)
        let id = try RequestReading.listID(request)
        let list = try ServiceError.mapping { () throws(EngineError) in try context.app.repository.live(id) }
        let indexText = request.pathParameters["index"] ?? ""
        let index = try RequestReading.integer(indexText, name: "the section index", maximum: Int(Int32.max))
        guard list.document.sections.indices.contains(index) else {
            throw .notFound("\"\(list.head.id)\" has \(list.document.sections.count) sections; there is no section \(index)")
        }
        let offset = try RequestReading.integer(request, "offset") ?? 0
        let limit = try RequestReading.limit(request)
        let section = list.document.sections[index]
        let page = section.items.dropFirst(offset).prefix(limit)
        var body = JSONObject()
        body["revision"] = .number(JSONNumber(list.head.revision))
        body["section"] = .string(section.id)
        body["offset"] = .number(JSONNumber(offset))
        body["total"] = .number(JSONNumber(section.items.count))
        body["items"] = .array(page.map(\.jsonValue))
        return Responses.json(200, .object(body), headers: ["ETag": EntityTag.fieldValue(of: String(list.head.revision), gzipped: false), "Cache-Control": "no-cache"])
    }
}
