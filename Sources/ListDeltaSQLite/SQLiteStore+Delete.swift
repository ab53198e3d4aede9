import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// Deletes a list: its head becomes a tombstone and its revision rows and kept answers are removed, in one
    /// transaction.
    ///
    /// The tombstone keeps the last revision so that a later create continues the numbering. It is returned by
    /// ``head(_:)`` with ``ListHead/isDeleted`` set, and never by ``lists(after:limit:)``.
    ///
    /// - Parameters:
    ///   - id: The list identifier.
    ///   - expectedRevision: When non-`nil`, the current revision the caller expects (an If-Match check).
    /// - Returns: The head as it was before the delete, or `nil` when there was no live list (nothing changes).
    /// - Throws: ``StoreError/conflict(current:)`` when `expectedRevision` does not match the live list,
    ///   ``StoreError/database(_:)`` on I/O failure.
    /// - Complexity: O(*r* + log *n*), where *r* is the number of the list's stored rows.
    public func delete(_ id: String, expectedRevision: Int?) throws(StoreError) -> ListHead? {
        try StoreError.catching {
            try pool.write { db in
                guard let current = try HeadRecord.fetchOne(db, key: id), !current.isDeleted else { return nil }
                if let expectedRevision, expectedRevision != current.revision {
                    throw StoreError.conflict(current: current.revision)
                }
                try current.tombstone.update(db)
                try RevisionRecord.filter(RevisionRecord.Columns.listID == id).deleteAll(db)
                try Self.forgetAnswers(of: id, in: db)
                return current.head
            }
        }
    }
}
