import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// Appends the next revision of a list in one transaction and returns the new head.
    ///
    /// The new revision is `expectedRevision + 1` for an update. For a create it is the last revision the id ever
    /// had (even if deleted) plus 1, so numbers are never reused. The head summary and
    /// ``ListHead/deltaBytesSinceCheckpoint`` are updated (reset to 0 by a snapshot), then retention applies:
    /// `oldestRevision = max(firstRevision, revision - retention + 1)`, and rows before the latest checkpoint at or
    /// below `oldestRevision` are deleted. Rows from that checkpoint up to `oldestRevision` stay, because rebuilding
    /// served revisions needs them, but they are not served.
    ///
    /// The method returns after the transaction commits (flushed to disk when
    /// ``SQLiteStoreConfiguration/durableSync`` is `true`).
    ///
    /// - Parameter write: The revision to append.
    /// - Returns: The head after the append.
    /// A view's write (``RevisionWrite/viewStep``) commits only when it moves the view forward, and records its step
    /// in the same transaction. So does the write's kept answer (``RevisionWrite/answer``).
    ///
    /// - Throws: ``StoreError/conflict(current:)`` when `expectedRevision` does not match the list,
    ///   ``StoreError/superseded(_:)`` when a view's write would not move the view forward,
    ///   ``StoreError/invalidWrite(_:)`` when the write is malformed, ``StoreError/database(_:)`` on I/O failure.
    /// - Complexity: O(*b* + log *n*) plus the deleted rows, where *b* is the blob size and *n* the row count.
    public func append(_ write: RevisionWrite) throws(StoreError) -> ListHead {
        let retention = configuration.retention
        return try StoreError.catching {
            try pool.write { db in
                let current = try HeadRecord.fetchOne(db, key: write.listID)
                // A key the list has answered is never applied again: the caller finds the answer kept.
                if let answer = write.answer, try Self.hasAnswer(answer, for: write.listID, in: db) {
                    throw StoreError.conflict(current: current.flatMap { $0.isDeleted ? nil : $0.revision })
                }
                let next = try HeadRecord.appending(write, to: current, retention: retention)
                // A view's write also moves the view, in this transaction, or writes nothing (after the head's own
                // check, as on every store: a write stale both ways is a conflict).
                if let step = write.viewStep { try Self.moveView(db, list: write.listID, to: step) }
                try next.save(db)
                try RevisionRecord(
                    listID: write.listID, revision: next.revision, delta: write.delta, snapshot: write.snapshot,
                    summary: write.summary, undo: write.undo
                ).insert(db)
                try Self.prune(db, listID: next.id, oldestRevision: next.oldestRevision)
                if let answer = write.answer { try Self.keep(answer, for: write.listID, in: db) }
                return next.head
            }
        }
    }

    /// Deletes the revision rows of `listID` that are no longer needed to rebuild any served revision.
    ///
    /// - Parameters:
    ///   - db: A connection inside a write transaction.
    ///   - listID: The list.
    ///   - oldestRevision: The oldest served revision.
    static func prune(_ db: Database, listID: String, oldestRevision: Int) throws {
        typealias Columns = RevisionRecord.Columns
        guard let checkpoint = try RevisionRecord.latestCheckpoint(db, listID: listID, atOrBelow: oldestRevision) else {
            return
        }
        try RevisionRecord
            .filter(Columns.listID == listID && Columns.revision < checkpoint)
            .deleteAll(db)
    }
}
