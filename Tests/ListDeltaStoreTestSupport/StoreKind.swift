import Dispatch
import ListDeltaCoreTestSupport
import ListDeltaPostgres
public import ListDeltaSQLite
public import ListDeltaStorage

/// Everything a store of the service is: what the contract suite holds both stores to.
public typealias ContractStore = RevisionStore & SourceStore & ViewStore

/// The stores every contract test runs against, as GRDB runs its suite against each of its database writers.
public enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    /// `SQLiteStore` in a fresh temporary directory.
    case sqlite
    /// `PostgresStore` on the test database (`LISTDELTA_TEST_POSTGRES_URL`), shared with every other test.
    case postgres

    /// The kinds that can run here: SQLite always, PostgreSQL when the test database is there (the contract suite
    /// reports the missing half through a suite skipped with ``Testing/Trait/needsTestDatabase``).
    public static let available: [StoreKind] = hasTestDatabase ? allCases : [.sqlite]

    public var description: String { rawValue }

    /// Runs `body` on a thread of its own (store calls block) with a fresh store of this kind, closed afterwards.
    ///
    /// A fresh SQLite store is empty; a PostgreSQL store is on the shared test database, so `body` names its lists
    /// with ``uniqueID(_:)`` (the same on either store), and whatever it reads of the whole database (`lists`,
    /// `allViews`, the bounds) holds what other tests write too.
    public func withStore(retention: Int = 1000, _ body: @escaping @Sendable (any ContractStore) throws -> Void) async throws {
        try await onOwnThread {
            switch self {
            case .sqlite:
                try withSQLiteStore(retention: retention) { store, _ in try body(store) }
            case .postgres:
                // A few at a time: each holds connections of the server, which every suite shares.
                postgresStores.wait()
                defer { postgresStores.signal() }
                let store = try openPostgresStore(retention: retention)
                defer { store.close() }
                try body(store)
            }
        }
    }
}

/// Places for the contract suite's PostgreSQL stores open at once.
private let postgresStores = DispatchSemaphore(value: 4)

/// Runs `body` with a SQLite store opened on a fresh temporary directory (in its `data` folder), and its
/// configuration (to open it again).
public func withSQLiteStore<T>(
    retention: Int = 1000, _ body: (SQLiteStore, SQLiteStoreConfiguration) throws -> T
) throws -> T {
    try withTemporaryDirectory(prefix: "listdelta-sqlite") { path in
        var configuration = SQLiteStoreConfiguration(directory: path + "/data")
        configuration.retention = retention
        return try body(try SQLiteStore(configuration: configuration), configuration)
    }
}
