import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// Returns the head of a list, including a deleted list's tombstone.
    ///
    /// - Parameter id: The list identifier.
    /// - Returns: The head, or `nil` if the id was never used.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure.
    /// - Complexity: O(log *n*), where *n* is the number of lists.
    public func head(_ id: String) throws(StoreError) -> ListHead? {
        try StoreError.catching {
            try pool.read { db in try HeadRecord.fetchOne(db, key: id)?.head }
        }
    }

    /// Returns the rows needed to rebuild a revision, read from one consistent snapshot of the database.
    ///
    /// The first row is the latest checkpoint at or below `revision` (its ``StoredRevision/snapshot`` is non-`nil`);
    /// the following rows are the deltas after it, ascending, up to and including `revision`. Rows are returned as
    /// stored, so the first row may also carry its own delta, which rebuilding does not need.
    ///
    /// - Parameters:
    ///   - id: The list identifier.
    ///   - revision: The revision to rebuild.
    /// - Returns: The rows, or `nil` when the revision is not served: below ``ListHead/oldestRevision``, above
    ///   ``ListHead/revision``, or the list is deleted or absent.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure or when the stored chain is incomplete.
    /// - Complexity: O(*k* + log *n*) plus the blob sizes, where *k* is the chain length.
    public func chain(_ id: String, upTo revision: Int) throws(StoreError) -> [StoredRevision]? {
        try StoreError.catching {
            try pool.read { db in
                guard let head = try HeadRecord.fetchOne(db, key: id), !head.isDeleted,
                    (head.oldestRevision...head.revision).contains(revision)
                else { return nil }
                guard let checkpoint = try RevisionRecord.latestCheckpoint(db, listID: id, atOrBelow: revision) else {
                    throw StoreError.database("no checkpoint for \(id)@\(revision)")
                }
                typealias Columns = RevisionRecord.Columns
                let rows = try RevisionRecord
                    .select(Columns.listID, Columns.revision, Columns.delta, Columns.snapshot)
                    .filter(Columns.listID == id && (checkpoint...revision).contains(Columns.revision))
                    .order(Columns.revision)
                    .fetchAll(db)
                guard rows.count == revision - checkpoint + 1 else {
                    throw StoreError.database("incomplete chain for \(id)@\(revision)")
                }
                return rows.map(\.stored)
            }
        }
    }

    /// Returns live lists in byte order of their identifiers, for paging.
    ///
    /// Deleted lists (tombstones) are skipped.
    ///
    /// - Parameters:
    ///   - after: Only ids strictly greater than this one (in UTF-8 byte order) are returned; `nil` starts at the
    ///     first list.
    ///   - limit: The maximum number of heads returned. Zero or less returns an empty array.
    /// - Returns: At most `limit` heads, ordered by id.
    /// - Throws: ``StoreError/database(_:)`` on I/O failure.
    /// - Complexity: O(*limit* + log *n*), where *n* is the number of lists.
    public func lists(after: String?, limit: Int) throws(StoreError) -> [ListHead] {
        guard limit > 0 else { return [] }
        return try StoreError.catching {
            try pool.read { db in
                let id = Column(HeadRecord.CodingKeys.id)
                var request = HeadRecord.filter(Column(HeadRecord.CodingKeys.isDeleted) == false)
                if let after { request = request.filter(id > after) }
                return try request.order(id).limit(limit).fetchAll(db).map(\.head)
            }
        }
    }
}
