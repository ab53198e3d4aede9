import Foundation
import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// Copies the database in `directory`, as it was at one instant, to a new SQLite file at `destination`, while
    /// other connections (a running service) go on writing.
    ///
    /// SQLite's online backup copies every page in one step inside one read transaction, so the copy holds every
    /// revision committed before the step began and none committed during it; in WAL mode the writers are not held
    /// up meanwhile. The copy is written beside `destination`, checked with `PRAGMA quick_check`, flushed, then
    /// renamed into place, so `destination` never holds a partial copy. Serve it by naming its directory as the
    /// data directory (the file must then be called `listdelta.sqlite`). O(size of the database).
    ///
    /// - Parameters:
    ///   - directory: The data directory of the store to copy (its `listdelta.sqlite` must exist; nothing is
    ///     created or migrated there).
    ///   - destination: The file to create; it must not exist.
    /// - Returns: The size of the copy in bytes.
    /// - Throws: ``StoreError/database(_:)`` when there is no database to copy, `destination` exists or cannot be
    ///   written, or the copy fails its check.
    @discardableResult
    public static func backup(directory: String, to destination: String) throws(StoreError) -> Int {
        let store = SQLiteStoreConfiguration(directory: directory)
        let source = store.databasePath
        let files = FileManager.default
        guard files.fileExists(atPath: source) else { throw .database("there is no database at \(source)") }
        guard !files.fileExists(atPath: destination) else { throw .database("\(destination) exists; name a new file") }
        let partial = destination + ".partial"
        try? files.removeItem(atPath: partial)
        do {
            try StoreError.catching {
                let from = try DatabasePool(path: source, configuration: Self.databaseConfiguration(store))
                let to = try DatabaseQueue(path: partial)
                try from.backup(to: to)
                let check = try to.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
                guard check == "ok" else { throw StoreError.database("the copy fails its check: \(check ?? "no answer")") }
                // One self-contained file: no -wal beside it to lose when it is moved.
                try to.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
                try to.close()
                try from.close()
            }
        } catch {
            try? files.removeItem(atPath: partial)
            throw error
        }
        return try finish(partial, as: destination)
    }

    /// Flushes `partial` and renames it to `destination`.
    private static func finish(_ partial: String, as destination: String) throws(StoreError) -> Int {
        let descriptor = open(partial, O_RDONLY)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw .database("cannot flush \(partial)")
        }
        close(descriptor)
        guard rename(partial, destination) == 0 else { throw .database("cannot rename \(partial) to \(destination)") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: destination)
        return (attributes?[.size] as? Int) ?? 0
    }
}
