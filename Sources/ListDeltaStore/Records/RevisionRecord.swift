import Foundation
import GRDB

/// The `revision` row. Blobs are read straight into `[UInt8]` (one copy) and written as `Data`.
struct RevisionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "revision"

    enum Columns {
        static let listID = Column("list_id")
        static let revision = Column("revision")
        static let isCheckpoint = Column("is_checkpoint")
        static let delta = Column("delta")
        static let snapshot = Column("snapshot")
    }

    var listID: String
    var revision: Int
    var delta: [UInt8]?
    var snapshot: [UInt8]?

    init(listID: String, revision: Int, delta: [UInt8]?, snapshot: [UInt8]?) {
        self.listID = listID
        self.revision = revision
        self.delta = delta
        self.snapshot = snapshot
    }

    init(row: Row) throws {
        listID = row[Columns.listID]
        revision = row[Columns.revision]
        delta = try row.withUnsafeData(at: Columns.delta) { $0.map { Array($0) } }
        snapshot = try row.withUnsafeData(at: Columns.snapshot) { $0.map { Array($0) } }
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.listID] = listID
        container[Columns.revision] = revision
        container[Columns.isCheckpoint] = snapshot != nil
        container[Columns.delta] = delta.map { Data($0) }
        container[Columns.snapshot] = snapshot.map { Data($0) }
    }

    /// The public view of this row.
    var stored: StoredRevision {
        StoredRevision(revision: revision, delta: delta, snapshot: snapshot)
    }
}

extension RevisionRecord {
    /// The newest checkpoint (snapshot) revision of `listID` at or below `revision`, or `nil` if there is none.
    /// - Complexity: O(log *n*) on the primary key.
    static func latestCheckpoint(_ db: Database, listID: String, atOrBelow revision: Int) throws -> Int? {
        try Int.fetchOne(
            db,
            RevisionRecord
                .select(max(Columns.revision))
                .filter(Columns.listID == listID && Columns.isCheckpoint == true && Columns.revision <= revision)
        )
    }
}
