import Dispatch
import Foundation
import HTTPServer
import ListDeltaAccess
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Logging
import Metrics
import Synchronization

/// What every route shares: the repository, the watchers, rendered bodies, the configuration, and where work runs.
///
/// The threading model (``EventLoopCheck`` lists the four kinds of threads; docs/architecture.md draws them):
/// - **Event loops** parse, route and answer from memory: validated ids, unknown ids (``ListRepository/mightExist(_:)``),
///   refused tokens, and current documents already rendered. They never touch the store, never compress, never
///   inflate, and never wait for a lock held across a commit.
/// - **The read pool** (``readPool``) runs everything else a read needs: the store, rebuilding revisions, diffs,
///   compressing new bodies. **The write pool** (``writePool``) runs writes, so that a flood of writes waiting for
///   the store's single writer never holds the threads reads need. Both queues are bounded: past
///   `maxQueuedRequests` a request is answered 503 with `Retry-After` (``busy(_:)``), counted in
///   `listdelta_work_rejected_total`.
/// - **The timer queue** only fires deadlines (a long poll's `wait`, an event stream's heartbeat) and hands the
///   work they start to a pool.
/// - Results get back to their loop through the responder, which hops to the request's loop itself.
final class ServiceContext: Sendable {
    let configuration: ServiceConfiguration
    let repository: ListRepository
    let hub = ChangeHub()
    let logger: Logger
    /// Who may read and write which list.
    let access: AccessControl
    /// The store, when other instances share it (PostgreSQL); `nil` for the embedded one.
    let sharedStore: (any SharedRevisionStore)?
    /// Where sources are kept (the same store as revisions).
    let sourceStore: any SourceStore
    /// Where views are kept (the same store as revisions).
    let viewStore: any ViewStore
    /// Which lists have views, and the hook that brings them up to date after a write of their base.
    let views: ViewRegistry
    /// Lists known to be neither fed by a source nor a view (see ``refuseDirectWrite(_:)``).
    let directlyWritten: DirectlyWrittenLists
    /// Rendered documents (by revision) and diffs (by from, to and format).
    let bodies: RenderCache
    let readPool: WorkerPool
    let writePool: WorkerPool
    /// Where views are brought up to date after their base's writes: as many threads as the write pool, at a lower
    /// priority than the requests' threads, so that a base's write is acknowledged as fast with views as without.
    let viewPool: WorkerPool
    private let timers = DispatchQueue(label: "listdelta.timers")
    private let drainingFlag = Atomic<Bool>(false)

    /// True once the instance was asked to stop and drains (see `drainSeconds`): `/healthz` answers 503.
    var isDraining: Bool { drainingFlag.load(ordering: .relaxed) }
    /// Marks the instance as draining.
    func beginDraining() { drainingFlag.store(true, ordering: .relaxed) }

    init(
        configuration: ServiceConfiguration, repository: ListRepository, logger: Logger, access: AccessControl,
        sharedStore: (any SharedRevisionStore)? = nil, sourceStore: any SourceStore, viewStore: any ViewStore
    ) {
        self.configuration = configuration
        self.sharedStore = sharedStore
        self.sourceStore = sourceStore
        self.viewStore = viewStore
        views = ViewRegistry()
        directlyWritten = DirectlyWrittenLists(isTrusted: sharedStore == nil)
        self.repository = repository
        self.logger = logger
        self.access = access
        bodies = RenderCache(repository: repository, budget: configuration.cacheBytes / 4)
        readPool = WorkerPool(name: "read", threads: configuration.workerThreads, queueLimit: configuration.maxQueuedRequests)
        writePool = WorkerPool(name: "write", threads: configuration.writeThreadsInUse, queueLimit: configuration.maxQueuedRequests)
        viewPool = WorkerPool(name: "view", threads: configuration.writeThreadsInUse, queueLimit: 0, niceness: 5)
    }

    /// Stops the pools after their queued work (call after the watchers were told).
    func shutdown() {
        readPool.shutdown()
        writePool.shutdown()
        viewPool.shutdown()
    }

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
    /// pool's queue is full.
    func admit(_ responder: any HTTPResponding, on pool: WorkerPool? = nil, _ job: @escaping @Sendable () -> Void) {
        let pool = pool ?? readPool
        if !pool.submit(job) { responder.respond(busy(pool)) }
    }

    /// Runs `job`, which continues admitted work (a woken poll), on the read pool.
    func continueWork(_ job: @escaping @Sendable () -> Void) {
        readPool.execute(job)
    }

    /// Runs `job` after `seconds` on the timer queue: it must only hand work on (to a pool or a responder).
    func after(_ seconds: Double, _ job: @escaping @Sendable () -> Void) {
        timers.asyncAfter(deadline: .now() + seconds, execute: job)
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
        guard !mustExist || repository.mightExist(id) else {
            responder.respond(Responses.problem(.notFound("there is no list \"\(id)\"")))
            return nil
        }
        return ReadableList(id: id, grant: grant)
    }

    // MARK: - Rendered bodies

    /// The `Cache-Control` of a representation that never changes (an old revision, a diff between two fixed
    /// revisions): `public` when anyone may read it, `private` when reads need a token, so that no shared cache
    /// keeps a private list's revision for whoever asks next.
    var immutableCacheControl: String {
        "\(configuration.privateReads ? "private" : "public"), max-age=31536000, immutable"
    }

    /// The `Cache-Control` of a poll's answer (a diff to the current revision): kept for `cursorSeconds` (no
    /// client asks for that URL again once its interval is over), `public` so that shared caches collapse the
    /// polls of every client at one revision, `private` when reads need a token.
    var pollCacheControl: String {
        "\(configuration.privateReads ? "private" : "public"), max-age=\(configuration.cursorSeconds)"
    }

    /// The `Cache-Control` of the current document: `no-cache` for browsers (they revalidate with its `ETag`), and
    /// one second in shared caches, so that a crowd of clients that open the page at once costs the origin one
    /// request per second (they then follow the diff from the revision they got, which brings the document up to
    /// date); `no-cache` alone when reads need a token.
    var currentDocumentCacheControl: String {
        configuration.privateReads ? "no-cache" : "public, max-age=0, s-maxage=\(Self.sharedDocumentSeconds)"
    }

    /// How long shared caches keep the current document: ``currentDocumentCacheControl``.
    static let sharedDocumentSeconds = 1

    /// The poll cursors' intervals (``PollCursor``).
    var pollCursor: PollCursor { PollCursor(cursorSeconds: configuration.cursorSeconds) }

    /// The wall clock in seconds since 1970: poll cursors are intervals of it, so every instance behind one cache
    /// agrees on them as far as their clocks agree.
    static func wallClock() -> Double {
        Date().timeIntervalSince1970
    }
}
