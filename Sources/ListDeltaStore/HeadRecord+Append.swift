extension HeadRecord {
    /// Decides the head that results from appending `write` to the list whose head is `current`.
    ///
    /// This is the pure part of ``ListStore/append(_:)``: it checks the write, numbers the revision, updates the
    /// summary and byte counters and moves the retention floor. It performs no I/O.
    ///
    /// - Parameters:
    ///   - write: The revision to append.
    ///   - current: The stored head of `write.listID`, live or tombstone, or `nil` if the id was never used.
    ///   - retention: How many revisions are served per list (at least 1).
    /// - Returns: The new head.
    /// - Throws: ``StoreError/conflict(current:)`` when `expectedRevision` does not match,
    ///   ``StoreError/invalidWrite(_:)`` when the write is malformed.
    static func appending(_ write: RevisionWrite, to current: HeadRecord?, retention: Int) throws(StoreError) -> HeadRecord {
        guard !write.listID.isEmpty else { throw .invalidWrite("list id is empty") }
        guard write.sectionCount >= 0, write.itemCount >= 0 else { throw .invalidWrite("counts must not be negative") }

        let live = current.flatMap { $0.isDeleted ? nil : $0 }
        let newRevision: Int
        let firstRevision: Int
        if let expected = write.expectedRevision {
            guard let live, live.revision == expected else { throw .conflict(current: live?.revision) }
            guard write.delta != nil else { throw .invalidWrite("an update needs a delta") }
            newRevision = expected + 1
            firstRevision = live.firstRevision
        } else {
            if let live { throw .conflict(current: live.revision) }
            guard write.snapshot != nil else { throw .invalidWrite("the first revision of a list needs a snapshot") }
            guard write.delta == nil else { throw .invalidWrite("the first revision of a list has no delta") }
            // A tombstone keeps its last revision so that numbers are never reused.
            newRevision = (current?.revision ?? 0) + 1
            firstRevision = newRevision
        }

        var next = HeadRecord(
            id: write.listID,
            revision: newRevision,
            isDeleted: false,
            oldestRevision: max(firstRevision, newRevision - retention + 1),
            firstRevision: firstRevision,
            checkpointRevision: live?.checkpointRevision ?? newRevision,
            kind: write.kind,
            sectionCount: write.sectionCount,
            itemCount: write.itemCount,
            deltaBytesSinceCheckpoint: live?.deltaBytesSinceCheckpoint ?? 0,
            checkpointBytes: live?.checkpointBytes ?? 0
        )
        if let snapshot = write.snapshot {
            next.checkpointRevision = newRevision
            next.checkpointBytes = snapshot.count
            next.deltaBytesSinceCheckpoint = 0
        } else {
            next.deltaBytesSinceCheckpoint += write.delta?.count ?? 0
        }
        return next
    }

    /// The tombstone left by deleting this list: same numbering, no served revisions, no stored bytes.
    var tombstone: HeadRecord {
        var tombstone = self
        tombstone.isDeleted = true
        tombstone.deltaBytesSinceCheckpoint = 0
        tombstone.checkpointBytes = 0
        return tombstone
    }
}
