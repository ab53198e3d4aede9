import Dispatch
import ListDeltaStorage
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// The connections appends run on: the store's own, beside the pool, each used by one append at a time straight
/// from the calling (worker) thread.
///
/// An append is the service's hottest database call, and through the pool (``BlockingCall``) it costs a task, a
/// lease and several thread hops per call: measured on two cores, half of the service's CPU per write went to
/// that machinery (`Benchmarks/scale-out.sh`). Here the worker hands the query to the connection's event loop and
/// waits for its answer: the loop and the worker are the only threads that run. At most `limit` connections are
/// open; a call waits for one (within its deadline) when all are in use. A connection that broke is dropped, and
/// the next call opens a new one.
final class AppendConnections: Sendable {
    private let configuration: PostgresConnection.Configuration
    private let eventLoops: any EventLoopGroup
    private let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    /// Free places under `limit`: taken for the length of a call.
    private let places: DispatchSemaphore
    private let nextID = Atomic<Int>(0)
    private let isClosed = Atomic<Bool>(false)

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
        guard !isClosed.load(ordering: .relaxed) else { throw .unavailable("the store is closed") }
        guard places.wait(timeout: deadline) == .success else { throw .unavailable("no connection to the database was free in \(seconds) s") }
        defer { places.signal() }
        let connection = try openConnection(until: deadline)
        let answer = Rendezvous<PostgresQueryResult>()
        connection.query(query, logger: logger).whenComplete { answer.deliver($0.mapError { $0 }) }
        guard let result = answer.wait(seconds: Self.seconds(until: deadline)) else {
            Self.close(connection)
            throw .unavailable("no answer from the database in \(seconds) s")
        }
        switch result {
        case .success(let answered):
            keep(connection)
            return answered.rows
        case .failure(let error):
            keep(connection)
            throw StoreError(postgres: error)
        }
    }

    /// An idle connection that is still open, or a new one.
    private func openConnection(until deadline: DispatchTime) throws(StoreError) -> PostgresConnection {
        while let kept = idle.withLock({ $0.popLast() }) {
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
        switch result {
        case .success(let connection): return connection
        case .failure(let error): throw StoreError(postgres: error)
        }
    }

    /// Keeps `connection` for the next call, unless it broke or the store closed.
    private func keep(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        guard !isClosed.load(ordering: .relaxed) else {
            Self.close(connection)
            return
        }
        idle.withLock { $0.append(connection) }
    }

    /// Closes every connection; calls after it fail. Idempotent.
    func close() {
        isClosed.store(true, ordering: .relaxed)
        for connection in idle.withLock({ idle in defer { idle = [] }; return idle }) {
            Self.close(connection)
        }
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
