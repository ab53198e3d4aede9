import Foundation
import GRDB
public import ListDeltaStorage

/// A durable store of list revisions, backed by one SQLite database in WAL mode.
///
/// The store knows nothing about list documents: it keeps opaque blobs that the service encodes. Per list it keeps
/// a head row (``ListHead``) and revision rows, each with an optional delta and an optional snapshot (checkpoint).
/// Reads run concurrently; writes are serialized and each runs in one `BEGIN IMMEDIATE` transaction.
///
/// ## Topics
///
/// ### Opening a store
/// - ``init(configuration:)``
///
/// ### Writing
/// - ``append(_:)``
/// - ``delete(_:expectedRevision:)``
///
/// ### Reading
/// - ``head(_:)``
/// - ``chain(_:upTo:)``
/// - ``lists(after:limit:)``
///
/// ### Maintenance
/// - ``databaseSizeBytes()``
/// - ``checkpointWAL()``
public final class SQLiteStore: RevisionStore {
    /// The configuration the store was opened with.
    public let configuration: SQLiteStoreConfiguration

    /// How many revisions are served per list.
    public var retention: Int { configuration.retention }

    /// `false`: only processes on this machine open the file, and the service runs one per data directory.
    public var isShared: Bool { false }

    public var databaseSystem: String { "sqlite" }

    /// The connection pool: one writer, several readers.
    let pool: DatabasePool

    /// Opens the store, creating the directory and the database if missing, and migrates the schema.
    ///
    /// Several stores may be open on the same directory (in one or several processes); SQLite serializes their
    /// writes, and a writer waits up to 10 seconds for another one.
    ///
    /// - Parameter configuration: Where the database lives and how it behaves.
    /// - Throws: ``StoreError/invalidWrite(_:)`` when `retention` is below 1, ``StoreError/database(_:)`` when the
    ///   directory or the database cannot be opened or migrated.
    public init(configuration: SQLiteStoreConfiguration) throws(StoreError) {
        guard configuration.retention >= 1 else { throw .invalidWrite("retention must be at least 1") }
        self.configuration = configuration
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.directory,
                withIntermediateDirectories: true
            )
        } catch {
            throw .database("cannot create directory \(configuration.directory)")
        }
        let pool = try StoreError.catching {
            try DatabasePool(path: configuration.databasePath, configuration: Self.databaseConfiguration(configuration))
        }
        try StoreError.catching { try Self.migrator.migrate(pool) }
        self.pool = pool
    }

    /// The GRDB configuration: busy timeout and `PRAGMA synchronous` on every new connection.
    static func databaseConfiguration(_ configuration: SQLiteStoreConfiguration) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(10)
        let synchronous = configuration.durableSync ? "FULL" : "NORMAL"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        return config
    }
}
