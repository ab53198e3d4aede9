import Foundation
import HTTPServer
import ListDeltaAccess
import ListDeltaApplication
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Metrics
import Tracing

/// What every route shares: the application it calls, the options of the contract, who may read and write, and how
/// an answer is run and sent.
///
/// The threading model (``EventLoopCheck`` lists the kinds of threads; docs/architecture.md draws them):
/// - **Event loops** parse, route and answer from memory: validated ids, unknown ids (``ListRepository/mightExist(_:)``),
///   refused tokens, and current documents already rendered. They never touch the store, never compress, never
///   inflate, and never wait for a lock held across a commit.
/// - **The application's pools** run everything else (``perform(_:on:_:)``): reads on the read pool, writes on the
///   write pool. Both queues are bounded: past `maxQueuedRequests` a request is answered 503 with `Retry-After`
///   (``busy(_:)``), counted in `listdelta_work_rejected_total`.
/// - Results get back to their loop through the responder, which hops to the request's loop itself.
struct RouteContext: Sendable {
    /// What the routes call.
    let app: Application
    /// The contract's numbers and bounds.
    let options: APIOptions
    /// Who may read and write which list.
    let access: AccessControl

    // MARK: - Where work runs

    /// Admits `body` on `pool` (the read pool by default) and answers with what it returns or its error as a
    /// problem; answers 503 when the pool's queue is full.
    func perform(
        _ responder: any HTTPResponding, on pool: WorkerPool? = nil,
        _ body: @escaping @Sendable () throws(ServiceError) -> HTTPResponse
    ) {
        admit(responder, on: pool) { responder.respond(Self.answer(body)) }
    }

    /// Admits `job`, which answers `responder` itself, on `pool` (the read pool by default); answers 503 when the
    /// pool's queue is full. A traced request's span says which pool ran it and how long it waited in its queue.
    func admit(_ responder: any HTTPResponding, on pool: WorkerPool? = nil, _ job: @escaping @Sendable () -> Void) {
        let pool = pool ?? app.pools.read
        var work = job
        if Spans.isEnabled, ServiceContext.current != nil {
            let queued = ContinuousClock.now
            work = {
                if let span = Spans.current {
                    span.attributes["listdelta.pool"] = pool.name
                    span.attributes["listdelta.queue.wait_ms"] = Spans.milliseconds(since: queued)
                }
                job()
            }
        }
        if !pool.submit(work) { responder.respond(busy(pool)) }
    }

    /// The 503 answer of a full pool, counted.
    func busy(_ pool: WorkerPool) -> HTTPResponse {
        Counter(label: "listdelta_work_rejected_total", dimensions: [("pool", pool.name)]).increment()
        return Responses.problem(.unavailable("the server is busy (its \(pool.name) queue is full); retry shortly"))
    }

    /// `body`'s response, or the problem response of its error.
    static func answer(_ body: () throws(ServiceError) -> HTTPResponse) -> HTTPResponse {
        do {
            return try body()
        } catch {
            return Responses.problem(error)
        }
    }

    // MARK: - Writes

    /// Writes the next revision of `id` through the application (``Application/write(_:origin:preconditions:mustExist:build:)``),
    /// a failure being the problem it answers.
    func write(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool = false,
        answer: ((WriteOutcome) -> AnswerToKeep)? = nil, build: (ListDocument?, Int) throws(ServiceError) -> ListDocument
    ) throws(ServiceError) -> WriteOutcome {
        do {
            return try app.write(id, origin: origin, preconditions: preconditions, mustExist: mustExist, answer: answer, build: build)
        } catch {
            throw ServiceError(error)
        }
    }

    /// Refuses a direct write of a list a source feeds or that is a view (409).
    func refuseDirectWrite(_ id: String) throws(ServiceError) {
        try ServiceError.mapping { () throws(ApplicationError) in try app.refuseDirectWrite(id) }
    }

    // MARK: - Checks on the loop

    /// A list a read may go on with: its id, and the grant that allowed it (`nil` when reads are public).
    struct ReadableList: Sendable {
        let id: String
        let grant: Grant?
    }

    /// The request's list, checked on the loop in the order that reveals nothing to whom may not read it: 400 for
    /// a malformed id, then 401/403 when the credential does not allow reading it, then (with `mustExist`) 404 for
    /// an id that certainly names no list (no store lookup). `nil` after answering the problem.
    /// - Parameter mustExist: `false` for what may be there before its list is (a source, whose first good fetch
    ///   creates the list).
    func readableList(_ request: HTTPRequest, _ responder: any HTTPResponding, mustExist: Bool = true) -> ReadableList? {
        let id: String
        let grant: Grant?
        do throws(ServiceError) {
            id = try RequestReading.listID(request)
            grant = try access.authorizeRead(request, list: id)
        } catch {
            responder.respond(Responses.problem(error))
            return nil
        }
        guard !mustExist || app.repository.mightExist(id) else {
            responder.respond(Responses.problem(.notFound("there is no list \"\(id)\"")))
            return nil
        }
        return ReadableList(id: id, grant: grant)
    }

    // MARK: - Caching

    /// The `Cache-Control` of a representation that never changes (an old revision, a diff between two fixed
    /// revisions): `public` when anyone may read it, `private` when reads need a token, so that no shared cache
    /// keeps a private list's revision for whoever asks next.
    var immutableCacheControl: String {
        "\(options.privateReads ? "private" : "public"), max-age=31536000, immutable"
    }

    /// The `Cache-Control` of a poll's answer (a diff to the current revision): kept for `cursorSeconds` (no
    /// client asks for that URL again once its interval is over), `public` so that shared caches collapse the
    /// polls of every client at one revision, `private` when reads need a token.
    var pollCacheControl: String {
        "\(options.privateReads ? "private" : "public"), max-age=\(options.cursorSeconds)"
    }

    /// The `Cache-Control` of the current document: `no-cache` for browsers (they revalidate with its `ETag`), and
    /// one second in shared caches, so that a crowd of clients that open the page at once costs the origin one
    /// request per second (they then follow the diff from the revision they got, which brings the document up to
    /// date); `no-cache` alone when reads need a token.
    var currentDocumentCacheControl: String {
        options.privateReads ? "no-cache" : "public, max-age=0, s-maxage=\(Self.sharedDocumentSeconds)"
    }

    /// How long shared caches keep the current document: ``currentDocumentCacheControl``.
    static let sharedDocumentSeconds = 1

    /// The poll cursors' intervals (``PollCursor``).
    var pollCursor: PollCursor { PollCursor(cursorSeconds: options.cursorSeconds) }

    /// The wall clock in seconds since 1970: poll cursors are intervals of it, so every instance behind one cache
    /// agrees on them as far as their clocks agree.
    static func wallClock() -> Double {
        Date().timeIntervalSince1970
    }
}
