import Dispatch
import ListDeltaCoreTestSupport
import ListDeltaPostgres
import Synchronization
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

    /// Runs `body` on a thread of its own (store calls block) with a store of this kind.
    ///
    /// A SQLite store is a new one on a fresh temporary directory, removed afterwards. A PostgreSQL store is one of
    /// the few this process opens on the shared test database, one per retention, which `body` shares with other
    /// cases and other tests: it names its lists with ``uniqueID(_:)`` (the same on either store), and whatever it
    /// reads of the whole database (`lists`, `allViews`, the bounds) holds what others write too. A store opened
    /// for every case cost new connections each time (authentication on both sides), which on a busy machine made
    /// calls of other tests wait past their deadline.
    public func withStore(retention: Int = 1000, _ body: @escaping @Sendable (any ContractStore) throws -> Void) async throws {
        try await onOwnThread {
            switch self {
            case .sqlite:
                try withSQLiteStore(retention: retention) { store, _ in try body(store) }
            case .postgres:
                // A few cases at a time, each with the store's connections to itself.
                postgresCases.wait()
                defer { postgresCases.signal() }
                try body(try sharedPostgresStore(retention: retention))
            }
        }
    }
}

/// Places for the contract suite's PostgreSQL cases running at once.
private let postgresCases = DispatchSemaphore(value: 4)

/// The PostgreSQL store of each retention the contract suite asked for, open until the process ends.
private let postgresStores = Mutex<[Int: PostgresStore]>([:])

private func sharedPostgresStore(retention: Int) throws -> PostgresStore {
    try postgresStores.withLock { stores in
        if let store = stores[retention] { return store }
        let store = try openPostgresStore(retention: retention)
        stores[retention] = store
        return store
    }
}

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
