/// Settings for opening a ``SQLiteStore``.
///
/// Create one with the data directory, then adjust the properties:
///
/// ```swift
/// var configuration = SQLiteStoreConfiguration(directory: "/var/lib/listdelta")
/// configuration.retention = 200
/// ```
public struct SQLiteStoreConfiguration: Sendable {
    // MARK: - Location

    /// The data directory. It is created (with intermediate directories) if missing.
    ///
    /// The database file is `<directory>/listdelta.sqlite`, next to its `-wal` and `-shm` files.
    public var directory: String

    // MARK: - Retention

    /// How many revisions are served per list: the last *K*, within the current incarnation.
    ///
    /// Must be at least 1. The default is 1000.
    public var retention: Int = 1000

    // MARK: - Durability

    /// Whether every commit is flushed to stable storage.
    ///
    /// `true` sets `PRAGMA synchronous = FULL`, so a revision survives a power loss once ``SQLiteStore/append(_:)``
    /// returns. `false` sets `NORMAL`, which in WAL mode survives a process crash but may lose the last commits on
    /// power loss. The journal mode is always WAL. The default is `true`.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>
    public var durableSync: Bool = true

    // MARK: - Creating a configuration

    /// Creates a configuration with default settings.
    ///
    /// - Parameter directory: The data directory, see ``directory``.
    public init(directory: String) {
        self.directory = directory
    }

    /// The path of the SQLite database file inside ``directory``.
    public var databasePath: String {
        directory.hasSuffix("/") ? directory + "listdelta.sqlite" : directory + "/listdelta.sqlite"
    }
}
