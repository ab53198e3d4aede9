import Foundation
import GRDB
import ListDeltaStorage

/// The `revision` row. Blobs are read straight into `[UInt8]` (one copy) and written as `Data`.
struct RevisionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "revision"

    enum Columns {
        static let listID = Column("list_id")
        static let revision = Column("revision")
        static let isCheckpoint = Column("is_checkpoint")
        static let delta = Column("delta")
        static let snapshot = Column("snapshot")
        static let committedAt = Column("committed_at_ms")
        static let origin = Column("origin")
        static let originRevision = Column("origin_revision")
        static let sectionCount = Column("section_count")
        static let itemCount = Column("item_count")
        static let undo = Column("undo")
    }

    var listID: String
    var revision: Int
    var delta: [UInt8]?
    var snapshot: [UInt8]?
    /// Written only (reads that need them select them): the history's summary and the undoing diff.
    var summary: RevisionSummary?
    var undo: [UInt8]?

    init(listID: String, revision: Int, delta: [UInt8]?, snapshot: [UInt8]?, summary: RevisionSummary? = nil, undo: [UInt8]? = nil) {
        self.listID = listID
        self.revision = revision
        self.delta = delta
        self.snapshot = snapshot
        self.summary = summary
        self.undo = undo
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
        container[Columns.undo] = undo.map { Data($0) }
        guard let summary else { return }
        container[Columns.committedAt] = summary.committedAtMilliseconds
        container[Columns.origin] = summary.origin?.storedName
        container[Columns.originRevision] = summary.origin?.storedRevision
        container[Columns.sectionCount] = summary.sectionCount
        container[Columns.itemCount] = summary.itemCount
        for (column, count) in zip(RevisionSummary.changeColumns, summary.changeCounts) { container[column] = count }
    }

    /// The summary stored in a row that selected the summary columns.
    static func summary(_ row: Row) -> RevisionSummary {
        let changes = RevisionSummary.changes(fromCounts: RevisionSummary.changeColumns.map { row[$0] as Int? })
        return RevisionSummary(
            revision: row[Columns.revision], committedAtMilliseconds: row[Columns.committedAt],
            origin: RevisionOrigin(storedName: row[Columns.origin], storedRevision: row[Columns.originRevision]),
            sectionCount: row[Columns.sectionCount], itemCount: row[Columns.itemCount],
            sectionChanges: changes.sections, itemChanges: changes.items)
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
