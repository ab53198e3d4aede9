import Foundation
public import ListDeltaPostgres
import ListDeltaStorage
import Logging
import Synchronization
public import Testing

/// The throwaway server `scripts/test.sh` starts (`scripts/postgres-cluster.sh`), or `nil` outside it.
public let testDatabaseURL = ProcessInfo.processInfo.environment["LISTDELTA_TEST_POSTGRES_URL"]

/// Whether the PostgreSQL tests can run (scripts/test.sh always sets the URL, and checks they ran).
public let hasTestDatabase = testDatabaseURL != nil

extension Trait where Self == ConditionTrait {
    /// Runs a suite only on the test database: without `LISTDELTA_TEST_POSTGRES_URL` it is skipped, in the words
    /// `scripts/test.sh` fails a run on.
    public static var needsTestDatabase: Self {
        .enabled(if: hasTestDatabase, "needs LISTDELTA_TEST_POSTGRES_URL (scripts/test.sh starts a server)")
    }
}

/// A store on the test database with a short deadline. Every test shares the database: each names its lists with
/// ``uniqueID(_:)``.
public func openPostgresStore(retention: Int = 1000, timeoutSeconds: Double = 5) throws -> PostgresStore {
    guard let testDatabaseURL else { throw StoreError.unavailable("needs LISTDELTA_TEST_POSTGRES_URL") }
    var configuration = try PostgresStoreConfiguration(url: testDatabaseURL)
    configuration.retention = retention
    configuration.timeoutSeconds = timeoutSeconds
    configuration.maximumConnections = 8
    return try PostgresStore(configuration: configuration, logger: Logger(label: "postgres-tests"), startupSeconds: 10)
}

/// A list id no other test uses.
public func uniqueID(_ prefix: String = "pg") -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())" }

/// Runs `body` while no other test attaches, claims or counts sources through this lock: a claim takes every due
/// source of the database, and the bound on sources counts them all, so on the shared test database the tests
/// that do either take turns (every suite runs in one test process).
public func exclusivelyOnSources(_ body: () throws -> Void) throws {
    try sourcesTurn.withLock { _ in try body() }
}

private let sourcesTurn = Mutex(())
