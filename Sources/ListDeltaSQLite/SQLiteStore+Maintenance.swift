import Foundation
import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// Returns the bytes the database occupies on disk: `page_count * page_size` plus the size of the WAL file.
    ///
    /// Call ``checkpointWAL()`` first for a figure that does not depend on when SQLite last checkpointed.
    ///
    /// - Returns: The size in bytes.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure.
    public func databaseSizeBytes() throws(StoreError) -> Int {
        let pages = try StoreError.catching {
            try pool.read { db in
                let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                return count * size
            }
        }
        let walPath = configuration.databasePath + "-wal"
        let attributes = try? FileManager.default.attributesOfItem(atPath: walPath)
        let walSize = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        return pages + walSize
    }

    /// Copies the WAL into the database file and truncates the WAL (`PRAGMA wal_checkpoint(TRUNCATE)`).
    ///
    /// It waits for concurrent writers (up to the busy timeout) and for readers of older snapshots.
    ///
    /// - Throws: ``StoreError/database(_:)`` when the checkpoint cannot complete (for example, busy).
    public func checkpointWAL() throws(StoreError) {
        try StoreError.catching {
            try pool.writeWithoutTransaction { db in
                _ = try db.checkpoint(.truncate)
            }
        }
    }

    /// The number of stored revision rows of a list (for tests and diagnostics).
    ///
    /// - Parameter id: The list identifier.
    /// - Returns: The row count, 0 for a deleted or absent list.
    func revisionRowCount(_ id: String) throws(StoreError) -> Int {
        try StoreError.catching {
            try pool.read { db in
                try RevisionRecord.filter(RevisionRecord.Columns.listID == id).fetchCount(db)
            }
        }
    }

    /// The `PRAGMA synchronous` value of a reader connection (for tests: 1 is NORMAL, 2 is FULL).
    func synchronousSetting() throws(StoreError) -> Int {
        try StoreError.catching {
            try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        }
    }
}
