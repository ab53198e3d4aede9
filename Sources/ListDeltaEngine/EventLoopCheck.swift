/// The engine's one thread rule, checked at its entry points in every build: what may block (the store, a lock
/// held across a commit, rebuilding a revision, compressing) never runs on a thread that must not block.
///
/// The engine knows no HTTP server: whoever runs one tells it which threads are its event loops. The check is a
/// thread-local read, cheap enough to make on every call, so it is a `precondition` and not an `assert`: a call
/// from a loop stops the process in release builds too, as GRDB's scheduling watchdog stops a database access
/// from the wrong queue.
///
/// The four kinds of threads of the service, and what each may do:
/// - **Event loops** (libevent, `HTTPServer.EventLoop`): accept, parse, route and answer from memory only
///   (``ListRepository/cachedHead(_:)``, ``ListRepository/cachedDocument(_:revision:)``,
///   ``ListRepository/mightExist(_:)``, ``RenderCache/cachedDocument(_:revision:)``). Never block.
/// - **Worker pools** (the service's `WorkerPool`s, one for reads, one for writes): every other engine call.
/// - **The PostgreSQL store's executor** (`StoreTaskExecutor`): runs the store's async calls, on which a worker
///   blocks (`BlockingCall`); it never calls the engine.
/// - **SwiftNIO's event loops** inside PostgresNIO and async-http-client: their own I/O only; results are handed
///   back to the waiting worker or the source scheduler.
public struct EventLoopCheck: Sendable {
    private let isOnEventLoop: @Sendable () -> Bool

    /// A check that asks `isOnEventLoop` on the calling thread.
    public init(isOnEventLoop: @escaping @Sendable () -> Bool) {
        self.isOnEventLoop = isOnEventLoop
    }

    /// No thread is an event loop (a process without an HTTP server: tools, benchmarks).
    public static let none = EventLoopCheck { false }

    /// Stops the process when called on an event loop: `work` may block.
    @inlinable
    public func refuse(_ work: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        precondition(!isOnEventLoopNow, "\(work()) must not run on an event loop thread", file: file, line: line)
    }

    /// Whether the calling thread is an event loop's.
    @usableFromInline var isOnEventLoopNow: Bool { isOnEventLoop() }
}
