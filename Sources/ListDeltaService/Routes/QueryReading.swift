import HTTPServer
import ListDeltaApplication
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage

/// What the routes that take a live query (`q`, API.md "Live queries") share: reading it, refusing it where it
/// does not belong, and rendering a query's result and the diff between two results, each once for every client.
enum QueryReading {
    /// The query in parameter `name` (`q` or `fromQuery`) over the list `base`, or `nil` when absent.
    /// - Throws: 400 with a pointer that starts with `/` and `name` (`/q/where/0/op`).
    static func query(_ request: HTTPRequest, _ name: String = "q", base: String, _ context: RouteContext) throws(ServiceError) -> LiveQuery? {
        guard let text = request.query[name] else { return nil }
        do {
            return try LiveQuery(
                text: text, base: base, limits: context.app.options.documentLimits,
                definitionLimits: context.app.options.definitionLimits, parameter: name)
        } catch {
            throw .invalidParameter(error.detail, pointer: error.pointer)
        }
    }

    /// The query `q` unless it is absent or the whole list (whose answers are those without `q`).
    static func partialQuery(_ request: HTTPRequest, base: String, _ context: RouteContext) throws(ServiceError) -> LiveQuery? {
        guard let query = try query(request, base: base, context), !query.isWholeList else { return nil }
        return query
    }

    /// The whole list `base` as a query (what a missing `fromQuery` means).
    static func wholeList(_ base: String, _ context: RouteContext) -> LiveQuery {
        let items = context.app.options.documentLimits.maximumItems
        return LiveQuery(definition: ViewDefinition(base: base, limit: items), defaultLimit: items)
    }

    /// 400 for a `q` (or `fromQuery`) sent to an endpoint that takes none.
    static func refuse(_ request: HTTPRequest) throws(ServiceError) {
        for name in ["q", "fromQuery"] where request.query[name] != nil {
            throw .invalidParameter(
                "\(name) is taken by GET /v1/lists/{id}, /diff and /events only (API.md, Live queries)", pointer: "/\(name)")
        }
    }

    /// The result of `query` at `revision` of its base (whose head is `head`).
    static func result(_ query: LiveQuery, at revision: Int, head: ListHead, _ context: RouteContext) throws(ServiceError) -> ListDocument {
        try ServiceError.mapping { () throws(EngineError) in try context.app.queries.result(of: query, at: revision, head: head) }
    }

    /// The query's document at `revision`, rendered once: the result with the base's id, the revision and
    /// `"query"`, the canonical `q` (as JSON: its compact text is the canonical form).
    static func document(_ query: LiveQuery, at revision: Int, head: ListHead, _ context: RouteContext) throws(ServiceError) -> RenderedBody {
        let key = RevisionKey(list: QueryKeeper.hubKey(of: query), revision: revision)
        return try ServiceError.mapping { () throws(EngineError) in
            try context.app.bodies.document(key) { () throws(EngineError) in
                let result = try context.app.queries.result(of: query, at: revision, head: head)
                return withQuery(result.jsonValue, query)
            }
        }
    }

    /// The document's JSON with `"query"` after `"revision"`.
    private static func withQuery(_ document: JSONValue, _ query: LiveQuery) -> JSONValue {
        guard case .object(let members) = document, let canonical = try? JSONReader().read(query.canonicalJSON) else { return document }
        var object = JSONObject()
        for (key, value) in members.entries {
            object[key] = value
            if key == "revision" { object["query"] = canonical }
        }
        return .object(object)
    }

    /// The diff from `old`'s result at `from` to `new`'s result at `to`, rendered once in `format`.
    static func diff(
        from old: LiveQuery, at from: Int, to new: LiveQuery, at to: Int, format: DiffFormat, head: ListHead, _ context: RouteContext
    ) throws(ServiceError) -> RenderedBody {
        var subject = QueryKeeper.hubKey(of: new)
        if old != new { subject += "\u{0}" + old.canonicalJSON }
        let key = DiffKey(list: subject, from: from, to: to, format: format)
        return try ServiceError.mapping { () throws(EngineError) in
            try context.app.bodies.diff(key) { () throws(EngineError) in
                let queries = context.app.queries!
                return (try queries.result(of: old, at: from, head: head), try queries.result(of: new, at: to, head: head))
            }
        }
    }

    /// The strong entity tag of a query's answer: the revisions, then each query's tag.
    static func entityTag(_ revisions: String, _ queries: [LiveQuery], patch: Bool = false) -> String {
        ([revisions] + queries.map(\.tag)).joined(separator: "-") + (patch ? "-patch" : "")
    }
}
