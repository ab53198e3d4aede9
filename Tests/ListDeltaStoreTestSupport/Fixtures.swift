public import ListDeltaStorage

/// Deterministic blob for a revision, so that tests can check what comes back.
public func blob(_ tag: UInt8, revision: Int, count: Int = 16) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: Int(tag) &+ revision &+ $0) }
}

extension RevisionWrite {
    /// The first revision of an incarnation: a snapshot (tag 1) of `snapshotSize` bytes and a summary.
    public static func create(_ id: String, revision: Int = 1, kind: String = "plain", snapshotSize: Int = 32) -> RevisionWrite {
        RevisionWrite(
            listID: id, expectedRevision: nil, kind: kind, sectionCount: 1, itemCount: 0, delta: nil,
            snapshot: blob(1, revision: revision, count: snapshotSize),
            summary: RevisionSummary(
                committedAtMilliseconds: 1_700_000_000_000, origin: .put, sectionCount: 1, itemCount: 0,
                sectionChanges: OperationCounts(inserted: 1), itemChanges: OperationCounts()))
    }

    /// An update on top of `expected`: a delta (tag 2) of `deltaSize` bytes, a checkpoint (tag 1, 32 bytes) if
    /// asked for, a summary and an undo diff (tag 3, 6 bytes). Its item count is `expected`.
    public static func update(_ id: String, expected: Int, deltaSize: Int = 8, checkpoint: Bool = false) -> RevisionWrite {
        RevisionWrite(
            listID: id, expectedRevision: expected, kind: "plain", sectionCount: 1, itemCount: expected,
            delta: blob(2, revision: expected + 1, count: deltaSize), snapshot: checkpoint ? blob(1, revision: expected + 1, count: 32) : nil,
            summary: RevisionSummary(
                committedAtMilliseconds: 1_700_000_000_000 + Int64(expected), origin: expected % 3 == 0 ? .revert(to: 1) : .patch,
                sectionCount: 1, itemCount: expected, sectionChanges: OperationCounts(),
                itemChanges: OperationCounts(deleted: expected % 2, inserted: 1, moved: 0, updated: expected % 5)),
            undo: blob(3, revision: expected + 1, count: 6))
    }

    /// This write as a view's, computed at `step` of its base with the view's `generation`.
    public func forView(generation: Int, step: Int) -> RevisionWrite {
        var write = self
        write.viewStep = ViewStep(generation: generation, baseStep: step)
        return write
    }
}

/// The ``StoreError`` `body` throws, `nil` when it throws nothing.
public func storeError(_ body: () throws -> Void) -> StoreError? {
    do {
        try body()
        return nil
    } catch {
        return error as? StoreError ?? .database("not a StoreError: \(error)")
    }
}

/// Writes a view's revision for `step` of its base as the service does: on the head as it is, again after each
/// race lost to another writer, until it commits or is superseded.
/// - Returns: The revision it committed, or `nil` when it was superseded (the view is already as far along).
/// - Throws: Any other ``StoreError``; ``StoreError/busy(_:)`` when it lost `attempts` races.
public func writeView(_ store: any RevisionStore, _ list: String, generation: Int = 1, step: Int, attempts: Int = 1_000) throws(StoreError) -> Int? {
    for _ in 0..<attempts {
        let current = try store.head(list)?.revision
        do {
            return try store.append(RevisionWrite.update(list, expected: current ?? 0).forView(generation: generation, step: step)).revision
        } catch .conflict {
            continue
        } catch .superseded {
            return nil
        }
    }
    throw .busy("the write for step \(step) lost \(attempts) races")
}
