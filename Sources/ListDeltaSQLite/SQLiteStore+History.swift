import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// A page of the served revisions of a live list, newest first: those below `before` (all when `nil`).
    ///
    /// Served from the stored summaries alone; no document is read.
    ///
    /// - Parameters:
    ///   - id: The list identifier.
    ///   - before: Only revisions strictly below this one; `nil` starts at the current revision.
    ///   - limit: The most summaries returned (at least 1).
    /// - Returns: The page, or `nil` when the list is deleted or absent.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure.
    /// - Complexity: O(*limit* + log *n*) on the primary key.
    public func history(_ id: String, before: Int?, limit: Int) throws(StoreError) -> HistoryPage? {
        try StoreError.catching {
            try pool.read { db in
                guard let head = try HeadRecord.fetchOne(db, key: id), !head.isDeleted else { return nil }
                let upper = min(before ?? Int.max, head.revision + 1)
                let pageSize = max(1, limit)
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT revision, committed_at_ms, origin, origin_revision, section_count, item_count, \
                        \(RevisionSummary.changeColumns.joined(separator: ", ")) FROM revision
                        WHERE list_id = ? AND revision >= ? AND revision < ? ORDER BY revision DESC LIMIT ?
                        """,
                    arguments: [id, head.oldestRevision, upper, pageSize + 1])
                let summaries = rows.prefix(pageSize).map(RevisionRecord.summary)
                return HistoryPage(head: head.head, revisions: Array(summaries), hasMore: rows.count > pageSize)
            }
        }
    }

    /// The undo diffs that lead from `start` back down to `target`: one per revision in `target + 1 ... start`,
    /// newest first, read from one consistent snapshot.
    ///
    /// - Parameters:
    ///   - id: The list identifier.
    ///   - start: The revision to walk back from.
    ///   - target: The revision to reach; it must be served.
    /// - Returns: The rows, or `nil` when `target` or `start` is not a served revision of the live list.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure or when a row is missing.
    /// - Complexity: O(*k* + log *n*) plus the blob sizes, for *k* = `start - target`.
    public func undoChain(_ id: String, from start: Int, downTo target: Int) throws(StoreError) -> [StoredUndo]? {
        try StoreError.catching {
            try pool.read { db in
                guard let head = try HeadRecord.fetchOne(db, key: id), !head.isDeleted, target <= start,
                    (head.oldestRevision...head.revision).contains(target), start <= head.revision
                else { return nil }
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT revision, undo FROM revision WHERE list_id = ? AND revision > ? AND revision <= ? ORDER BY revision DESC",
                    arguments: [id, target, start])
                var chain: [StoredUndo] = []
                chain.reserveCapacity(start - target)
                while let row = try rows.next() {
                    let undo = try row.withUnsafeData(at: RevisionRecord.Columns.undo) { $0.map { Array($0) } }
                    chain.append(StoredUndo(revision: row[RevisionRecord.Columns.revision], undo: undo))
                }
                guard chain.count == start - target else {
                    throw StoreError.database("incomplete undo chain for \(id) from \(start) to \(target)")
                }
                return chain
            }
        }
    }

    /// What rebuilding a revision reads each way, in stored bytes, from one consistent snapshot; the blobs' lengths
    /// are read from their records, not the blobs.
    ///
    /// - Returns: `nil` when `revision` or `newer` is not served, or `newer` is below `revision`.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure or when the stored chain has no checkpoint.
    /// - Complexity: O(*k* + log *n*) for the *k* rows between the checkpoint and `newer`.
    public func rebuildCosts(_ id: String, revision: Int, from newer: Int) throws(StoreError) -> RebuildCosts? {
        try StoreError.catching {
            try pool.read { db in
                guard let head = try HeadRecord.fetchOne(db, key: id), !head.isDeleted, revision <= newer,
                    (head.oldestRevision...head.revision).contains(revision), newer <= head.revision
                else { return nil }
                guard let checkpoint = try RevisionRecord.latestCheckpoint(db, listID: id, atOrBelow: revision) else {
                    throw StoreError.database("no checkpoint for \(id)@\(revision)")
                }
                let forward = try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(SUM(CASE WHEN revision = ? THEN length(snapshot) ELSE length(delta) END), 0)
                        FROM revision WHERE list_id = ? AND revision >= ? AND revision <= ?
                        """,
                    arguments: [checkpoint, id, checkpoint, revision]) ?? 0
                let backward = try Row.fetchOne(
                    db,
                    sql: "SELECT COUNT(*), COUNT(undo), COALESCE(SUM(length(undo)), 0) FROM revision WHERE list_id = ? AND revision > ? AND revision <= ?",
                    arguments: [id, revision, newer])
                let rows: Int = backward?[0] ?? 0
                let undos: Int = backward?[1] ?? 0
                let complete = rows == newer - revision && undos == rows
                return RebuildCosts(
                    forwardBytes: forward, forwardRows: revision - checkpoint + 1,
                    backwardBytes: complete ? (backward?[2] ?? 0) : nil, backwardRows: newer - revision)
            }
        }
    }
}
