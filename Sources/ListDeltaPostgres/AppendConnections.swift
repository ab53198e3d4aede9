import Dispatch
import ListDeltaStorage
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The connections appends run on: the store's own, beside the pool, each used by one caller at a time straight
/// from the calling (worker) thread.
///
/// An append is the service's hottest database call, and through the pool (``BlockingCall``) it costs a task, a
/// lease and several thread hops per call: measured on two cores, half of the service's CPU per write went to
/// that machinery (`Benchmarks/scale-out.sh`). Here the worker hands the query to the connection's event loop and
/// waits for its answer: the loop and the worker are the only threads that run. At most `limit` connections are
/// leased at once; a caller waits for a place (within its deadline) when all are. A connection that broke, or whose
/// call outlived its deadline, is closed, and a later call opens a new one. Each connection's `lock_timeout` is four
/// fifths of the store's deadline, so a call waiting for a list's advisory lock gives up on the server too, and
/// says so (``StoreError/busy(_:)``) before the caller's deadline.
final class AppendConnections: Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var isClosed = false
    }

    private let configuration: PostgresConnection.Configuration
    private let lockTimeoutMilliseconds: Int
    private let eventLoops: any EventLoopGroup
    private let logger: Logger
    private let state = Mutex(State())
    /// Free places under `limit`: one is taken for the length of a lease.
    private let places: DispatchSemaphore
    private let nextID = Atomic<Int>(0)

    /// - Throws: ``StoreError/invalidWrite(_:)`` when TLS is asked for and cannot be set up.
    init(configuration: PostgresStoreConfiguration, limit: Int, eventLoops: any EventLoopGroup, logger: Logger) throws(StoreError) {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch configuration.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw .invalidWrite("cannot set up TLS for PostgreSQL: \(error)")
        }
        self.configuration = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username, password: configuration.password,
            database: configuration.database, tls: tls)
        // Shorter than the deadline, so that the server's refusal (busy) comes back before the caller gives up.
        lockTimeoutMilliseconds = max(1, Int(configuration.timeoutSeconds * 800))
        self.eventLoops = eventLoops
        self.logger = logger
        places = DispatchSemaphore(value: max(1, limit))
    }

    /// The rows `query` returns, run on a connection of these, waiting at most `seconds` in all (for a place, a
    /// connection and the answer).
    /// - Throws: the database's error as a ``StoreError``; ``StoreError/unavailable(_:)`` past the deadline (the
    ///   connection is then closed: whether the call took effect is unknown).
    func rows(of query: PostgresQuery, seconds: Double) throws(StoreError) -> [PostgresRow] {
        let deadline = DispatchTime.now() + seconds
        let connection = try lease(until: deadline)
        var reusable = false
        defer { giveBack(connection, reusable: reusable) }
        let rows = try run(query, on: connection, until: deadline, reusable: &reusable)
        return rows
    }

    /// Takes a place and a connection, an idle one that is still open or a new one, for one caller until it gives
    /// it back (``giveBack(_:reusable:)``).
    /// - Throws: ``StoreError/unavailable(_:)`` when none is had by `deadline`.
    func lease(until deadline: DispatchTime) throws(StoreError) -> PostgresConnection {
        guard !state.withLock({ $0.isClosed }) else { throw .unavailable("the store is closed") }
        guard places.wait(timeout: deadline) == .success else { throw .unavailable("no connection to the database was free in time") }
        do {
            return try openConnection(until: deadline)
        } catch {
            places.signal()
            throw error
        }
    }

    /// Gives back a leased connection: kept for the next caller when `reusable` (its last call was answered and
    /// left no transaction open), closed otherwise.
    func giveBack(_ connection: PostgresConnection, reusable: Bool) {
        defer { places.signal() }
        guard reusable, !connection.isClosed else {
            Self.close(connection)
            return
        }
        let kept = state.withLock { state in
            guard !state.isClosed else { return false }
            state.idle.append(connection)
            return true
        }
        if !kept { Self.close(connection) }
    }

    /// Runs `query` on a leased `connection`, waiting for the answer until `deadline`. `reusable` is set to whether
    /// the connection answered (it is closed when it did not in time).
    func run(
        _ query: PostgresQuery, on connection: PostgresConnection, until deadline: DispatchTime, reusable: inout Bool
    ) throws(StoreError) -> [PostgresRow] {
        reusable = false
        let answer = Rendezvous<PostgresQueryResult>()
        connection.query(query, logger: logger).whenComplete { answer.deliver($0.mapError { $0 }) }
        guard let result = answer.wait(seconds: Self.seconds(until: deadline)) else {
            throw .unavailable("no answer from the database in time")
        }
        switch result {
        case .success(let answered):
            reusable = true
            return answered.rows
        case .failure(let error):
            // A server's refusal leaves the connection usable; a broken connection is closed already.
            reusable = !connection.isClosed
            throw StoreError(postgres: error)
        }
    }

    /// Opens a connection and sets its `lock_timeout`.
    private func openConnection(until deadline: DispatchTime) throws(StoreError) -> PostgresConnection {
        while let kept = state.withLock({ $0.idle.popLast() }) {
            if !kept.isClosed { return kept }
        }
        let id = nextID.add(1, ordering: .relaxed).newValue
        let opened = Rendezvous<PostgresConnection>()
        let future = PostgresConnection.connect(on: eventLoops.next(), configuration: configuration, id: id, logger: logger)
        future.whenComplete { opened.deliver($0.mapError { $0 }) }
        guard let result = opened.wait(seconds: Self.seconds(until: deadline)) else {
            future.whenSuccess(Self.close)
            throw .unavailable("cannot connect to the database in time")
        }
        let connection: PostgresConnection
        switch result {
        case .success(let opened): connection = opened
        case .failure(let error): throw StoreError(postgres: error)
        }
        var reusable = false
        do {
            _ = try run(
                "SELECT set_config('lock_timeout', \(String(lockTimeoutMilliseconds) + "ms"), false)", on: connection, until: deadline,
                reusable: &reusable)
        } catch {
            Self.close(connection)
            throw error
        }
        return connection
    }

    /// Closes every idle connection; calls after it fail, and leased connections are closed when given back.
    /// Idempotent.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = [] }
            return state.idle
        }
        idle.forEach(Self.close)
    }

    /// Closes `connection`, which stays referenced until it is closed (PostgresNIO requires it).
    private static func close(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private static func seconds(until deadline: DispatchTime) -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        return deadline.uptimeNanoseconds > now ? Double(deadline.uptimeNanoseconds - now) / 1e9 : 0
    }
}
