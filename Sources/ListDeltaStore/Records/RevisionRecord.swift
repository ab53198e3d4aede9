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
        container[Columns.origin] = summary.origin.map(Self.originName)
        if case .revert(let to) = summary.origin { container[Columns.originRevision] = to }
        container[Columns.sectionCount] = summary.sectionCount
        container[Columns.itemCount] = summary.itemCount
        let counts = [summary.sectionChanges, summary.itemChanges].flatMap { counts in
            [counts?.deleted, counts?.inserted, counts?.moved, counts?.updated]
        }
        for (column, count) in zip(RevisionSummary.changeColumns, counts) { container[column] = count }
    }

    static func originName(_ origin: RevisionOrigin) -> String {
        switch origin {
        case .put: "put"
        case .patch: "patch"
        case .revert: "revert"
        case .source: "source"
        }
    }

    /// The summary stored in a row that selected the summary columns.
    static func summary(_ row: Row) -> RevisionSummary {
        let origin: RevisionOrigin? = switch row[Columns.origin] as String? {
        case "put": .put
        case "patch": .patch
        case "revert": (row[Columns.originRevision] as Int?).map { RevisionOrigin.revert(to: $0) }
        case "source": .source
        default: nil
        }
        let counts = RevisionSummary.changeColumns.map { row[$0] as Int? }
        func operations(_ offset: Int) -> OperationCounts? {
            guard let deleted = counts[offset], let inserted = counts[offset + 1], let moved = counts[offset + 2],
                let updated = counts[offset + 3] else { return nil }
            return OperationCounts(deleted: deleted, inserted: inserted, moved: moved, updated: updated)
        }
        return RevisionSummary(
            revision: row[Columns.revision], committedAtMilliseconds: row[Columns.committedAt], origin: origin,
            sectionCount: row[Columns.sectionCount], itemCount: row[Columns.itemCount],
            sectionChanges: operations(0), itemChanges: operations(4))
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
