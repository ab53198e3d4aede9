import Foundation
import ListDeltaPostgres
import ListDeltaStorage
import Logging
import Testing

/// The throwaway server `scripts/test.sh` starts (`scripts/postgres-cluster.sh`), or `nil` outside it.
let testDatabaseURL = ProcessInfo.processInfo.environment["LISTDELTA_TEST_POSTGRES_URL"]

/// Whether the PostgreSQL tests can run (scripts/test.sh always sets the URL, and checks they ran).
let hasTestDatabase = testDatabaseURL != nil

/// A store on the test database with a short deadline.
func openPostgresStore(retention: Int = 1000, timeoutSeconds: Double = 5) throws -> PostgresStore {
    var configuration = try PostgresStoreConfiguration(url: testDatabaseURL!)
    configuration.retention = retention
    configuration.timeoutSeconds = timeoutSeconds
    configuration.maximumConnections = 8
    return try PostgresStore(configuration: configuration, logger: Logger(label: "postgres-tests"), startupSeconds: 10)
}

/// Runs `body` on a thread of its own and awaits it without blocking: the store's calls block their thread
/// while a task runs them, which must never be one of Swift concurrency's few cooperative threads (tests run
/// there), as it never is in the service (its workers are threads of their own).
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A list id no other test uses.
func uniqueID(_ prefix: String = "pg") -> String { "\(prefix)-\(UUID().uuidString.prefix(12).lowercased())" }

/// Deterministic blob for a revision, so that tests can check what comes back.
func blob(_ tag: UInt8, revision: Int, count: Int = 16) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: Int(tag) &+ revision &+ $0) }
}

extension RevisionWrite {
    /// The first revision of an incarnation.
    static func create(_ id: String, revision: Int = 1) -> RevisionWrite {
        RevisionWrite(
            listID: id, expectedRevision: nil, kind: "plain", sectionCount: 1, itemCount: 0, delta: nil,
            snapshot: blob(1, revision: revision, count: 32),
            summary: RevisionSummary(
                committedAtMilliseconds: 1_700_000_000_000, origin: .put, sectionCount: 1, itemCount: 0,
                sectionChanges: OperationCounts(inserted: 1), itemChanges: OperationCounts()))
    }

    /// An update on top of `expected`, with an optional checkpoint, a summary and an undo diff.
    static func update(_ id: String, expected: Int, checkpoint: Bool = false) -> RevisionWrite {
        RevisionWrite(
            listID: id, expectedRevision: expected, kind: "plain", sectionCount: 1, itemCount: expected,
            delta: blob(2, revision: expected + 1, count: 8), snapshot: checkpoint ? blob(1, revision: expected + 1, count: 32) : nil,
            summary: RevisionSummary(
                committedAtMilliseconds: 1_700_000_000_000 + Int64(expected), origin: expected % 3 == 0 ? .revert(to: 1) : .patch,
                sectionCount: 1, itemCount: expected, sectionChanges: OperationCounts(),
                itemChanges: OperationCounts(deleted: expected % 2, inserted: 1, moved: 0, updated: expected % 5)),
            undo: blob(3, revision: expected + 1, count: 6))
    }
}
