import ListDeltaStorage

extension HeadRecord {
    /// The row of a stored head.
    init(_ stored: StoredHead) {
        let head = stored.head
        self.init(
            id: head.id, revision: head.revision, isDeleted: head.isDeleted, oldestRevision: head.oldestRevision,
            firstRevision: head.firstRevision, checkpointRevision: stored.checkpointRevision, kind: head.kind,
            sectionCount: head.sectionCount, itemCount: head.itemCount,
            deltaBytesSinceCheckpoint: head.deltaBytesSinceCheckpoint, checkpointBytes: head.checkpointBytes)
    }

    /// The store-neutral view of this row.
    var stored: StoredHead { StoredHead(head: head, checkpointRevision: checkpointRevision) }

    /// The row that results from appending `write` to the list whose row is `current`: the pure part of
    /// ``SQLiteStore/append(_:)`` (``StoredHead/appending(_:to:retention:)``).
    static func appending(_ write: RevisionWrite, to current: HeadRecord?, retention: Int) throws(StoreError) -> HeadRecord {
        HeadRecord(try StoredHead.appending(write, to: current?.stored, retention: retention))
    }

    /// The tombstone left by deleting this list.
    var tombstone: HeadRecord { HeadRecord(stored.tombstone) }
}
