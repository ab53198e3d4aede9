import Foundation
public import ListDeltaPostgres
import ListDeltaSQLite
public import ListDeltaService
public import ListDeltaStorage
public import Logging

extension ServiceConfiguration {
    /// `true` when revisions live in PostgreSQL (`databaseURL`), shared with other instances.
    public var usesPostgres: Bool { !databaseURL.isEmpty }

    /// The PostgreSQL store's settings, from `databaseURL` and the settings beside it.
    /// - Throws: `StoreError.invalidWrite` for a URL that does not parse.
    public func postgresConfiguration() throws(StoreError) -> PostgresStoreConfiguration {
        var postgres = try PostgresStoreConfiguration(url: databaseURL, password: databasePassword.isEmpty ? nil : databasePassword)
        postgres.retention = retention
        postgres.maximumConnections = databaseConnections
        postgres.timeoutSeconds = databaseTimeoutSeconds
        return postgres
    }

    /// Opens the store the configuration names: PostgreSQL when `databaseURL` is set, else SQLite in
    /// `dataDirectory`.
    /// - Throws: `ConfigurationError` naming the store (never the password) and why it cannot be opened.
    public func openStore(logger: Logger) throws(ConfigurationError) -> any RevisionStore & SourceStore & ViewStore {
        do {
            if usesPostgres {
                let postgres = try postgresConfiguration()
                logger.info("opening the PostgreSQL store", metadata: ["database": "\(postgres.redacted)"])
                return try PostgresStore(configuration: postgres, logger: logger)
            }
            var sqlite = SQLiteStoreConfiguration(directory: dataDirectory)
            sqlite.retention = retention
            sqlite.durableSync = durableSync
            return try SQLiteStore(configuration: sqlite)
        } catch {
            throw ConfigurationError("cannot open the store \(storeDescription): \(error)")
        }
    }

    /// Where revisions are kept, for logs and errors (never with the password).
    public var storeDescription: String {
        guard usesPostgres else { return "in \(dataDirectory)" }
        return (try? postgresConfiguration().redacted) ?? "in PostgreSQL"
    }
}

extension ServiceConfiguration {
    /// Checks what ``ServiceConfiguration/validate()`` cannot, since it knows no concrete store: that `databaseURL`,
    /// when set, parses.
    /// - Throws: `ConfigurationError` naming `databaseURL` and what is wrong with it.
    public func validateStore() throws(ConfigurationError) {
        guard usesPostgres else { return }
        do {
            _ = try postgresConfiguration()
        } catch {
            throw ConfigurationError("databaseURL: \(error)")
        }
    }

    /// Copies the SQLite store in `dataDirectory`, as of one instant and while a service may be writing to it, to a
    /// new file (see `SQLiteStore.backup(directory:to:)`).
    /// - Parameter destination: The file to create, or an existing directory to create `listdelta.sqlite` in.
    /// - Returns: The path written and its size in bytes.
    /// - Throws: `ConfigurationError` when the store is PostgreSQL's (back it up with `pg_dump`), there is no
    ///   database to copy, or the copy cannot be written.
    public func backupStore(to destination: String) throws(ConfigurationError) -> (path: String, bytes: Int) {
        guard !usesPostgres else {
            throw ConfigurationError("backup copies the embedded SQLite store; back up PostgreSQL with pg_dump (see docs/deployment.md, Backups)")
        }
        var isDirectory: ObjCBool = false
        let path =
            FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) && isDirectory.boolValue
            ? SQLiteStoreConfiguration(directory: destination).databasePath : destination
        do {
            return (path, try SQLiteStore.backup(directory: dataDirectory, to: path))
        } catch {
            throw ConfigurationError("cannot back up the store in \(dataDirectory) to \(path): \(error)")
        }
    }
}
