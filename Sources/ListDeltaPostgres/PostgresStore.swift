import Foundation
public import ListDeltaStorage
public import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// Revisions in PostgreSQL, shared by every instance that points at the same database.
///
/// The same rows and rules as the SQLite store (see ``RevisionStore``), with what sharing needs:
/// - **One writer per list at a time, across instances.** An append or a delete runs in one transaction that
///   first takes a transaction-scoped advisory lock on the list's id, then checks its head, so revisions are
///   numbered without gaps and of racing writers expecting the same revision exactly one commits; the others get
///   ``StoreError/conflict(current:)``. An append is one round trip (``AppendFunction``): the head is decided here
///   from the head last seen (``KnownHeads``), and the database applies it only if that is still the head. A call
///   returns after the commit was acknowledged (`synchronous_commit`, the server's default, makes that durable).
/// - **Views** (``ViewStore``): a view's append (``RevisionWrite/viewStep``) is one round trip too, through a
///   function that also checks, under the same lock, that it moves the view forward along its base, and records
///   its step (``ViewFunctions``), so a view's revisions stay in base order however many instances update it.
/// - **Announcements.** The committing transaction sends `NOTIFY` (delivered only if it commits, in commit
///   order); every instance `LISTEN`s on a connection of its own and hands the others' commits to the service
///   (``startAnnouncements(_:)``). A broken listening connection is reconnected, announced as `interrupted` then
///   `resumed`.
/// - **An unreachable database** makes calls fail with ``StoreError/unavailable(_:)`` within
///   ``PostgresStoreConfiguration/timeoutSeconds``, and ``isReachable`` false until it answers again.
///
/// - **A list that one instance keeps winning** is not lost to the others: a writer that lost its race a few
///   times takes a turn on it (``takeWriteTurn(_:)``, ``ListTurn``), in which no other instance commits.
///
/// Calls block their (worker) thread while PostgresNIO runs them on its own event loops: an append on one of the
/// store's own connections, straight from the thread (``AppendConnections``); every other call through the pool
/// (``BlockingCall``).
public final class PostgresStore: SharedRevisionStore {
    /// Where it connects and how it behaves.
    public let configuration: PostgresStoreConfiguration
    public var retention: Int { configuration.retention }
    public var isShared: Bool { true }

    public var databaseSystem: String { "postgresql" }

    let client: PostgresClient
    let logger: Logger
    /// This process's name in announcements, by which it skips its own.
    let instance = String(UInt64.random(in: 1...UInt64.max), radix: 36)
    /// The head of each list as last seen here, from which appends are decided without reading it first.
    let knownHeads = KnownHeads()
    /// The connections appends run on, beside the pool.
    let appendConnections: AppendConnections
    /// The turns this instance holds, by list (see ``takeWriteTurn(_:)``).
    let turns = Mutex<[String: ListTurn]>([:])
    private let running: Task<Void, Never>
    private let reachable = Atomic<Bool>(true)
    private let listener = Mutex<AnnouncementListener?>(nil)

    /// Connects, and creates or migrates the schema (see ``PostgresSchema``), waiting up to `startupSeconds` for a
    /// database that is still starting.
    /// - Throws: ``StoreError/unavailable(_:)`` when the database cannot be reached in time,
    ///   ``StoreError/database(_:)`` when the schema cannot be migrated.
    public init(configuration: PostgresStoreConfiguration, logger: Logger, startupSeconds: Double = 30) throws(StoreError) {
        guard configuration.retention >= 1 else { throw .invalidWrite("retention must be at least 1") }
        self.configuration = configuration
        self.logger = logger
        // PostgresNIO reports every failed connection attempt at info; the store's own lines say what matters
        // (waiting for PostgreSQL, unreachable, reachable again), so its background lines start at warning.
        var background = logger
        background.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(configuration: Self.clientConfiguration(configuration), backgroundLogger: background)
        self.client = client
        appendConnections = try AppendConnections(
            configuration: configuration, limit: Self.appendConnectionLimit(configuration), eventLoops: PostgresClient.defaultEventLoopGroup,
            logger: background)
        // The pool is leased from only once `run()` has begun (PostgresNIO warns of a lease before it): the task
        // signals just before the call, whose first step, without suspending, marks the client running.
        let started = DispatchSemaphore(value: 0)
        running = Task(executorPreference: StoreTaskExecutor.shared) {
            started.signal()
            await client.run()
        }
        started.wait()
        let deadline = Date().addingTimeInterval(startupSeconds)
        while true {
            do {
                try call { [client, logger] in try await PostgresSchema.migrate(client, logger: logger) }
                return
            } catch .unavailable(let reason) where Date() < deadline {
                logger.warning("waiting for PostgreSQL", metadata: ["database": "\(configuration.redacted)", "reason": "\(reason)"])
                Thread.sleep(forTimeInterval: 1)
            } catch {
                running.cancel()
                throw error
            }
        }
    }

    private static func clientConfiguration(_ configuration: PostgresStoreConfiguration) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch configuration.tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var client = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username, password: configuration.password,
            database: configuration.database, tls: tls)
        // The appends' own connections are taken from the configured number; one more for the listening
        // connection, which the announcements hold for as long as they run.
        let pooled = max(1, configuration.maximumConnections - appendConnectionLimit(configuration))
        client.options.maximumConnections = pooled + 1
        // Every connection is opened at start and kept: a burst of requests on a cold instance (a restart under
        // load, a rollout) would otherwise wait for the pool to grow one connection at a time, past the calls'
        // deadline, and its timed-out calls would keep the pool behind for as long as the burst lasts.
        client.options.minimumConnections = pooled + 1
        client.options.connectTimeout = .milliseconds(Int64(configuration.timeoutSeconds * 1_000))
        client.options.keepAliveBehavior = .init(frequency: .seconds(10))
        return client
    }

    /// Runs `operation` within the configured deadline and keeps ``isReachable`` up to date.
    func call<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws(StoreError) -> T {
        try direct { () throws(StoreError) in try BlockingCall.run(seconds: configuration.timeoutSeconds, operation) }
    }

    /// Runs `operation`, a call to the database that keeps its own deadline, and keeps ``isReachable`` up to date.
    func direct<T>(_ operation: () throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            let value = try operation()
            reachable.store(true, ordering: .relaxed)
            return value
        } catch {
            if case .unavailable = error { reachable.store(false, ordering: .relaxed) }
            throw error
        }
    }

    /// How many of the configured connections appends have for themselves (``AppendConnections``): half, and at
    /// least one (with one configured connection, the pool keeps one too).
    static func appendConnectionLimit(_ configuration: PostgresStoreConfiguration) -> Int {
        max(1, configuration.maximumConnections / 2)
    }

    /// Records what the listening connection found out about the database.
    func markReachable(_ isReachable: Bool) { reachable.store(isReachable, ordering: .relaxed) }

    public var isReachable: Bool { reachable.load(ordering: .relaxed) }

    public func startAnnouncements(_ handler: @escaping @Sendable (StoreAnnouncement) -> Void) {
        listener.withLock { listener in
            guard listener == nil else { return }
            listener = AnnouncementListener(store: self, handler: handler)
        }
    }

    public func close() {
        listener.withLock { listener in
            listener?.stop()
            listener = nil
        }
        appendConnections.close()
        running.cancel()
    }

    deinit {
        appendConnections.close()
        running.cancel()
    }
}
