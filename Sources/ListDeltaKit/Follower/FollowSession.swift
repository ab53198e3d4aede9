import Foundation
import ListDeltaCore

/// What a follower holds and does: the document, the open event stream, the pending reload and the backoff.
///
/// `next()` is the whole behaviour of client.js's ListFollower as a pull: it asks the server until it has an
/// update, retrying failures with backoff, and returns `nil` once its task is cancelled.
struct FollowSession {
    private let endpoints: ListEndpoints
    private let listID: String
    private var options: FollowOptions
    private let transport: any ListTransport
    private var document: ListDocument?
    /// Set when the document must be fetched again; reported with the fetched document.
    private var pendingReset: ListReset?
    private var stream: EventStreamReader?
    private var backoff: Backoff
    /// Paces reloads that follow one another without a diff applied in between (a server that keeps answering
    /// 410 or diffs that do not fit): reset only by progress, so such a loop slows down to the maximum delay.
    private var reloadBackoff: Backoff
    private var reloadsWithoutProgress = 0
    /// The poll the last answer named (its `Link: <…>; rel="next"`), for the revision it starts from: sent
    /// verbatim, so that every follower at one revision polls the same URL and a shared cache collapses them.
    private var nextPoll: (from: Int, url: URL)?

    init(endpoints: ListEndpoints, listID: String, options: FollowOptions, transport: any ListTransport) {
        self.endpoints = endpoints
        self.listID = listID
        self.options = options
        self.transport = transport
        backoff = Backoff(options.backoff)
        reloadBackoff = Backoff(options.backoff)
    }

    /// The next update, or `nil` once the calling task is cancelled.
    mutating func next() async -> ListUpdate? {
        while !Task.isCancelled {
            do throws(FollowError) {
                let update = try await step()
                backoff.reset()
                if let update { return update }
            } catch {
                if Task.isCancelled { break }
                let delay = backoff.next()
                options.onRetry?(error, delay)
                do { try await Task.sleep(for: delay) } catch { break }
            }
        }
        stream = nil
        return nil
    }

    /// One exchange with the server: an update, or `nil` when it brought none (a long poll that timed out, a
    /// reset to act on next).
    private mutating func step() async throws(FollowError) -> ListUpdate? {
        guard let held = document, pendingReset == nil else { return try await load() }
        switch options.mode {
        case .poll: return try await poll(from: held)
        case .events: return try await nextEvent(from: held)
        }
    }

    /// Fetches the whole document: the first one, or after a reset.
    private mutating func load() async throws(FollowError) -> ListUpdate? {
        stream = nil
        if let reset = pendingReset, reloadsWithoutProgress > 0 {
            let delay = reloadBackoff.next()
            options.onRetry?(.repeatedReset(reset, count: reloadsWithoutProgress), delay)
            do { try await Task.sleep(for: delay) } catch { throw .transport(TransportError("cancelled")) }
        }
        let fetched = try await transport.document(at: endpoints.document(query: options.query), options: options)
        let reset = pendingReset
        document = fetched
        pendingReset = nil
        if reset != nil { reloadsWithoutProgress += 1 }
        return ListUpdate(document: fetched, change: reset.map(ListUpdate.Change.reset) ?? .initial)
    }

    private mutating func poll(from held: ListDocument) async throws(FollowError) -> ListUpdate? {
        let url = nextPoll.flatMap { $0.from == held.revision ? $0.url : nil }
            ?? endpoints.diff(from: held.revision, query: options.query, wait: options.wait)
        let response = try await get(url, idleTimeout: Double(options.wait) + 15)
        guard response.status == 200 else {
            nextPoll = nil
            try refused(response.status, body: response.body, holding: held)
            return nil
        }
        let diff = try ResponseBody.diff(response.body)
        nextPoll = NextLink.target(in: response.headers["link"]).flatMap(endpoints.next).map { (diff.to, $0) }
        if diff.isEmpty, diff.listID == listID, diff.from == held.revision {
            // Nothing changed; a query's result may have stayed as it was while its base moved on to `to`.
            document?.revision = diff.to
            return nil
        }
        return advance(held, by: diff)
    }

    /// Follows `query` (`nil`: the whole list) from now on: the diff from the current query's result to the new
    /// one's, at the base's current revision, fetched and applied at once, so the view animates the change.
    /// - Throws: ``FollowError`` when the server refuses the query (a 400 names the member) or cannot be reached:
    ///   the follower then goes on with the query it had.
    mutating func setQuery(_ query: String?) async throws(FollowError) -> ListUpdate? {
        guard let held = document, pendingReset == nil else {
            options.query = query
            pendingReset = ListReset(reason: .check, detail: "the query changed before a document was held", from: document?.revision ?? 0)
            return nil
        }
        // fromQuery is always sent (`{}` for the whole list): without it the answer would be a poll of the new query.
        let response = try await get(endpoints.diff(from: held.revision, fromQuery: options.query ?? "{}", query: query), idleTimeout: 30)
        guard response.status == 200 else { throw .status(response.status, detail: ResponseBody.detail(response.body)) }
        let diff = try ResponseBody.diff(response.body)
        stream = nil
        options.query = query
        nextPoll = NextLink.target(in: response.headers["link"]).flatMap(endpoints.next).map { (diff.to, $0) }
        if let update = advance(held, by: diff) { return update }
        return nil
    }

    /// Acts on an answer other than 200 to a request from the revision held: a 410 sets a reset to `gone` (the
    /// document is fetched next, at once); a 404 sets a reset to `missing` and throws (fetched after a backoff);
    /// any other status throws.
    private mutating func refused(_ status: Int, body: [UInt8], holding held: ListDocument) throws(FollowError) {
        switch status {
        case 410:
            reset(.gone, "revision \(held.revision) is gone (current \(ResponseBody.current(body).map(String.init) ?? "unknown"))")
        case 404:
            reset(.missing, "the list was not found")
            throw .status(404, detail: ResponseBody.detail(body))
        default:
            throw .status(status, detail: ResponseBody.detail(body))
        }
    }

    private mutating func nextEvent(from held: ListDocument) async throws(FollowError) -> ListUpdate? {
        if stream == nil {
            guard try await openStream(from: held) else { return nil }
        }
        let event: ServerSentEvent?
        do {
            event = try await stream?.next()
        } catch {
            stream = nil
            throw error
        }
        guard let event else {
            stream = nil
            throw .streamEnded("the server closed the stream")
        }
        switch event.name {
        case "diff":
            guard let diff = try? ResponseBody.diff(Array(event.data.utf8)) else {
                reset(.check, "unreadable event: \(event.data.prefix(100))")
                return nil
            }
            return advance(held, by: diff)
        case "reset":
            let current = ResponseBody.current(Array(event.data.utf8)).map(String.init) ?? "unknown"
            reset(.event, "event: reset (current \(current))")
            return nil
        default:
            return nil
        }
    }

    /// Opens the event stream from the revision held; `false` when the answer calls for a reload instead.
    private mutating func openStream(from held: ListDocument) async throws(FollowError) -> Bool {
        let request = TransportRequest(
            url: endpoints.events(from: held.revision, query: options.query), headers: options.headers(accept: "text/event-stream"),
            idleTimeout: options.streamIdleTimeout)
        let opened: TransportStream
        do {
            opened = try await transport.stream(request)
        } catch {
            throw .transport(error)
        }
        guard opened.status == 200 else {
            try refused(opened.status, body: await Self.drain(opened), holding: held)
            return false
        }
        stream = EventStreamReader(opened)
        backoff.reset()
        return true
    }

    /// `held` advanced by `diff`, or `nil` (with a reset pending) when the diff does not fit it.
    ///
    /// Following a live query, a diff may start from a later base revision than the one held: an event stream moves
    /// on silently past base revisions that leave the result as it was (docs/queries.md), so the result held is the
    /// result at the diff's `from`. Such a diff is taken as starting from the revision held (its counts are still
    /// checked against the result held).
    private mutating func advance(_ held: ListDocument, by served: ListDiff) -> ListUpdate? {
        var diff = served
        if options.query != nil, diff.listID == listID, diff.from > held.revision { diff.from = held.revision }
        guard diff.listID == listID, diff.from == held.revision else {
            reset(.mismatch, "diff of \(diff.listID) from \(diff.from), holding \(listID) at \(held.revision)")
            return nil
        }
        do {
            let next = try diff.apply(to: held)
            document = next
            reloadsWithoutProgress = 0
            reloadBackoff.reset()
            return ListUpdate(document: next, change: .diff(diff))
        } catch {
            reset(.check, error.reason)
            return nil
        }
    }

    private mutating func reset(_ reason: ListReset.Reason, _ detail: String) {
        stream = nil
        if pendingReset == nil {
            pendingReset = ListReset(reason: reason, detail: detail, from: document?.revision ?? 0)
        }
    }

    private func get(_ url: URL, idleTimeout: Double) async throws(FollowError) -> TransportResponse {
        try await transport.get(url, options: options, idleTimeout: idleTimeout)
    }

    /// The body of an answer that is not a stream of events (a problem), up to 64 KiB.
    private static func drain(_ stream: TransportStream) async -> [UInt8] {
        var body: [UInt8] = []
        do {
            for try await chunk in stream.chunks {
                body += chunk
                if body.count > 65_536 { break }
            }
        } catch {}
        return body
    }
}
