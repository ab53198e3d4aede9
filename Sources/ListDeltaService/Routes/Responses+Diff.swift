import HTTPServer
import ListDeltaEngine

extension Responses {
    /// What makes a diff a poll's answer (a diff to the list's current revision): the revision it starts from, the
    /// poll's cursor, and the next poll as a function of the next cursor.
    struct PollAnswer {
        let from: Int
        let to: Int
        let cursor: Int
        let next: (_ cursor: Int) -> NextPollLink
    }

    /// A rendered diff, for a list or a live query alike. Between two fixed revisions (`poll` nil) it never changes:
    /// immutable. A poll's answer stays correct however long it is kept (a diff from `from` to a revision the list
    /// had): shared for the cursor's interval, naming the next poll, whose cursor is the current interval when the
    /// answer carries changes and the one after the poll's otherwise (``PollCursor/next(after:changed:now:)``).
    static func diff(
        _ rendered: RenderedBody, etag: String, format: DiffFormat, poll: PollAnswer?, request: HTTPRequest, context: RouteContext
    ) -> HTTPResponse {
        guard let poll else {
            return representation(rendered, etag: etag, contentType: format.contentType, cacheControl: context.immutableCacheControl, request: request)
        }
        var response = representation(rendered, etag: etag, contentType: format.contentType, cacheControl: context.pollCacheControl, request: request)
        let cursor = context.pollCursor.next(after: poll.cursor, changed: poll.to != poll.from, now: RouteContext.wallClock())
        response.headers["Link"] = poll.next(cursor).fieldValue
        response.headers["Vary"] = "Accept-Encoding"
        return response
    }
}
