/// A list's head as a store keeps it: the public ``ListHead`` and the revision of its latest checkpoint.
///
/// Every store decides an append with the same pure arithmetic (``appending(_:to:retention:)``), so revision
/// numbering, retention and tombstones agree whichever store holds the list.
public struct StoredHead: Sendable, Equatable {
    /// The head the service sees.
    public var head: ListHead
    /// The revision of the latest snapshot in the current incarnation.
    public var checkpointRevision: Int

    /// Creates a stored head.
    public init(head: ListHead, checkpointRevision: Int) {
        self.head = head
        self.checkpointRevision = checkpointRevision
    }

    /// Decides the head that results from appending `write` to the list whose head is `current`.
    ///
    /// It checks the write, numbers the revision, updates the summary and byte counters and moves the retention
    /// floor: `oldestRevision = max(firstRevision, revision - retention + 1)`. It performs no I/O.
    ///
    /// - Parameters:
    ///   - write: The revision to append.
    ///   - current: The stored head of `write.listID`, live or tombstone, or `nil` if the id was never used.
    ///   - retention: How many revisions are served per list (at least 1).
    /// - Returns: The new head.
    /// - Throws: ``StoreError/conflict(current:)`` when `expectedRevision` does not match,
    ///   ``StoreError/invalidWrite(_:)`` when the write is malformed.
    /// - Complexity: O(1).
    public static func appending(_ write: RevisionWrite, to current: StoredHead?, retention: Int) throws(StoreError) -> StoredHead {
        guard !write.listID.isEmpty else { throw .invalidWrite("list id is empty") }
        guard write.sectionCount >= 0, write.itemCount >= 0 else { throw .invalidWrite("counts must not be negative") }

        let live = current.flatMap { $0.head.isDeleted ? nil : $0 }
        let newRevision: Int
        let firstRevision: Int
        if let expected = write.expectedRevision {
            guard let live, live.head.revision == expected else { throw .conflict(current: live?.head.revision) }
            guard write.delta != nil else { throw .invalidWrite("an update needs a delta") }
            newRevision = expected + 1
            firstRevision = live.head.firstRevision
        } else {
            if let live { throw .conflict(current: live.head.revision) }
            guard write.snapshot != nil else { throw .invalidWrite("the first revision of a list needs a snapshot") }
            guard write.delta == nil else { throw .invalidWrite("the first revision of a list has no delta") }
            // A tombstone keeps its last revision so that numbers are never reused.
            newRevision = (current?.head.revision ?? 0) + 1
            firstRevision = newRevision
        }

        var next = StoredHead(
            head: ListHead(
                id: write.listID, revision: newRevision, isDeleted: false,
                oldestRevision: max(firstRevision, newRevision - retention + 1), firstRevision: firstRevision,
                kind: write.kind, sectionCount: write.sectionCount, itemCount: write.itemCount,
                deltaBytesSinceCheckpoint: live?.head.deltaBytesSinceCheckpoint ?? 0, checkpointBytes: live?.head.checkpointBytes ?? 0),
            checkpointRevision: live?.checkpointRevision ?? newRevision)
        if let snapshot = write.snapshot {
            next.checkpointRevision = newRevision
            next.head.checkpointBytes = snapshot.count
            next.head.deltaBytesSinceCheckpoint = 0
        } else {
            next.head.deltaBytesSinceCheckpoint += write.delta?.count ?? 0
        }
        return next
    }

    /// The tombstone left by deleting this list: same numbering, no served revisions, no stored bytes.
    public var tombstone: StoredHead {
        var tombstone = self
        tombstone.head.isDeleted = true
        tombstone.head.deltaBytesSinceCheckpoint = 0
        tombstone.head.checkpointBytes = 0
        return tombstone
    }
}
