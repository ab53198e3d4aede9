public import ListDeltaStorage
import Logging
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// The head columns, in ``decodeHead(_:)``'s order.
    static let headColumns = """
        id, revision, is_deleted, oldest_revision, first_revision, checkpoint_revision, kind, section_count, item_count, \
        delta_bytes_since_checkpoint, checkpoint_bytes
        """

    /// A head row's values, in ``headColumns``' order.
    typealias HeadValues = (String, Int, Bool, Int, Int, Int, String, Int, Int, Int, Int)

    /// A head row selected with ``headColumns``.
    /// The query that reads the head of `id` (no row when it has none), `FOR UPDATE` when `locking`.
    static func headQuery(_ id: String, locking: Bool = false) -> PostgresQuery {
        "SELECT \(unescaped: headColumns) FROM list_head WHERE id = \(id)\(unescaped: locking ? " FOR UPDATE" : "")"
    }

    static func decodeHead(_ row: PostgresRow) throws -> StoredHead {
        storedHead(from: try row.decode(HeadValues.self))
    }

    /// The stored head a row's values describe.
    static func storedHead(from values: HeadValues) -> StoredHead {
        let (id, revision, isDeleted, oldest, first, checkpoint, kind, sections, items, deltaBytes, checkpointBytes) = values
        return StoredHead(
            head: ListHead(
                id: id, revision: revision, isDeleted: isDeleted, oldestRevision: oldest, firstRevision: first, kind: kind,
                sectionCount: sections, itemCount: items, deltaBytesSinceCheckpoint: deltaBytes, checkpointBytes: checkpointBytes),
            checkpointRevision: checkpoint)
    }

    /// A head row's values that may all be NULL (a function's answer about a head it found elsewhere, or none).
    typealias OptionalHeadValues = (String?, Int?, Bool?, Int?, Int?, Int?, String?, Int?, Int?, Int?, Int?)

    /// The stored head such values describe; `nil` when any is NULL (the list has no head row).
    static func storedHead(from values: OptionalHeadValues) -> StoredHead? {
        guard let id = values.0, let revision = values.1, let isDeleted = values.2, let oldest = values.3, let first = values.4,
            let checkpoint = values.5, let kind = values.6, let sections = values.7, let items = values.8, let deltaBytes = values.9,
            let checkpointBytes = values.10
        else { return nil }
        return storedHead(from: (id, revision, isDeleted, oldest, first, checkpoint, kind, sections, items, deltaBytes, checkpointBytes))
    }

    /// The stored head of `id`, read on `connection` (inside a transaction) or through the pool.
    static func storedHead(_ id: String, on connection: PostgresConnection, logger: Logger, locking: Bool) async throws -> StoredHead? {
        let rows = try await connection.query(
            headQuery(id, locking: locking), logger: logger)
        for try await row in rows { return try decodeHead(row) }
        return nil
    }

    public func head(_ id: String) throws(StoreError) -> ListHead? {
        try storedHead(id)?.head
    }

    /// The stored head of `id` read through the pool (remembered as the head last seen, for appends).
    func storedHead(_ id: String) throws(StoreError) -> StoredHead? {
        let head: StoredHead? = try call { [client, logger] in
            for try await row in try await client.query(Self.headQuery(id), logger: logger) {
                return try Self.decodeHead(row)
            }
            return nil
        }
        if let head { knownHeads.remember(head) } else { knownHeads.forget(id) }
        return head
    }

    public func chain(_ id: String, upTo revision: Int) throws(StoreError) -> [StoredRevision]? {
        // One statement reads from one snapshot: the head's served range, the checkpoint and the deltas after it.
        let rows: [StoredRevision] = try call { [client, logger] in
            let rows = try await client.query(
                """
                SELECT r.revision, r.delta, r.snapshot FROM revision r
                WHERE r.list_id = \(id) AND r.revision <= \(revision)
                AND EXISTS (SELECT 1 FROM list_head h WHERE h.id = \(id) AND NOT h.is_deleted
                    AND \(revision) BETWEEN h.oldest_revision AND h.revision)
                AND r.revision >= (SELECT max(c.revision) FROM revision c
                    WHERE c.list_id = \(id) AND c.is_checkpoint AND c.revision <= \(revision))
                ORDER BY r.revision
                """, logger: logger)
            var chain: [StoredRevision] = []
            for try await (number, delta, snapshot) in rows.decode((Int, ByteBuffer?, ByteBuffer?).self) {
                chain.append(StoredRevision(revision: number, delta: delta.map(Self.bytes), snapshot: snapshot.map(Self.bytes)))
            }
            return chain
        }
        guard let first = rows.first else { return nil }
        guard first.snapshot != nil, rows.count == revision - first.revision + 1 else {
            throw .database("incomplete chain for \(id)@\(revision)")
        }
        return rows
    }

    public func undoChain(_ id: String, from start: Int, downTo target: Int) throws(StoreError) -> [StoredUndo]? {
        guard target <= start else { return nil }
        let rows: [StoredUndo]? = try call { [client, logger] in
            let rows = try await client.query(
                """
                SELECT h.revision, r.revision, r.undo FROM list_head h
                LEFT JOIN revision r ON r.list_id = h.id AND r.revision > \(target) AND r.revision <= \(start)
                WHERE h.id = \(id) AND NOT h.is_deleted AND \(target) BETWEEN h.oldest_revision AND h.revision
                    AND \(start) <= h.revision
                ORDER BY r.revision DESC
                """, logger: logger)
            var chain: [StoredUndo]?
            for try await (_, number, undo) in rows.decode((Int, Int?, ByteBuffer?).self) {
                if chain == nil { chain = [] }
                if let number { chain?.append(StoredUndo(revision: number, undo: undo.map(Self.bytes))) }
            }
            return chain
        }
        guard let rows else { return nil }
        guard rows.count == start - target else { throw .database("incomplete undo chain for \(id) from \(start) to \(target)") }
        return rows
    }

    public func rebuildCosts(_ id: String, revision: Int, from newer: Int) throws(StoreError) -> RebuildCosts? {
        guard revision <= newer else { return nil }
        // One statement, one snapshot: the served range, the checkpoint at or below `revision`, and the blobs' lengths.
        let row: (checkpoint: Int?, forward: Int, rows: Int, undos: Int, backward: Int)? = try call { [client, logger] in
            let rows = try await client.query(
                """
                WITH checkpoint AS (
                    SELECT max(c.revision) AS revision FROM revision c
                    WHERE c.list_id = \(id) AND c.is_checkpoint AND c.revision <= \(revision))
                SELECT checkpoint.revision,
                    (SELECT COALESCE(sum(CASE WHEN r.revision = checkpoint.revision THEN octet_length(r.snapshot)
                        ELSE octet_length(r.delta) END), 0)::bigint
                     FROM revision r WHERE r.list_id = \(id) AND r.revision >= checkpoint.revision AND r.revision <= \(revision)),
                    (SELECT count(*) FROM revision u WHERE u.list_id = \(id) AND u.revision > \(revision) AND u.revision <= \(newer)),
                    (SELECT count(u.undo) FROM revision u WHERE u.list_id = \(id) AND u.revision > \(revision) AND u.revision <= \(newer)),
                    (SELECT COALESCE(sum(octet_length(u.undo)), 0)::bigint FROM revision u
                     WHERE u.list_id = \(id) AND u.revision > \(revision) AND u.revision <= \(newer))
                FROM list_head h, checkpoint
                WHERE h.id = \(id) AND NOT h.is_deleted AND \(revision) BETWEEN h.oldest_revision AND h.revision
                    AND \(newer) <= h.revision
                """, logger: logger)
            for try await values in rows.decode((Int?, Int, Int, Int, Int).self) {
                return (checkpoint: values.0, forward: values.1, rows: values.2, undos: values.3, backward: values.4)
            }
            return nil
        }
        guard let row else { return nil }
        guard let checkpoint = row.checkpoint else { throw .database("no checkpoint for \(id)@\(revision)") }
        let complete = row.rows == newer - revision && row.undos == row.rows
        return RebuildCosts(
            forwardBytes: row.forward, forwardRows: revision - checkpoint + 1, backwardBytes: complete ? row.backward : nil,
            backwardRows: newer - revision)
    }

    public func history(_ id: String, before: Int?, limit: Int) throws(StoreError) -> HistoryPage? {
        let pageSize = max(1, limit)
        return try call { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                // Both reads see one snapshot.
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                guard let stored = try await Self.storedHead(id, on: connection, logger: logger, locking: false), !stored.head.isDeleted else {
                    return nil
                }
                let head = stored.head
                let upper = min(before ?? Int.max, head.revision + 1)
                let columns = (["revision", "committed_at_ms", "origin", "origin_revision", "section_count", "item_count"]
                    + RevisionSummary.changeColumns).joined(separator: ", ")
                let rows = try await connection.query(
                    """
                    SELECT \(unescaped: columns) FROM revision
                    WHERE list_id = \(id) AND revision >= \(head.oldestRevision) AND revision < \(upper)
                    ORDER BY revision DESC LIMIT \(pageSize + 1)
                    """, logger: logger)
                var summaries: [RevisionSummary] = []
                for try await row in rows {
                    let (number, committedAt, origin, originRevision, sections, items, s1, s2, s3, s4, i1, i2, i3, i4) = try row.decode(
                        (Int, Int64?, String?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?, Int?).self)
                    let changes = RevisionSummary.changes(fromCounts: [s1, s2, s3, s4, i1, i2, i3, i4])
                    summaries.append(RevisionSummary(
                        revision: number, committedAtMilliseconds: committedAt,
                        origin: RevisionOrigin(storedName: origin, storedRevision: originRevision), sectionCount: sections, itemCount: items,
                        sectionChanges: changes.sections, itemChanges: changes.items))
                }
                return HistoryPage(head: head, revisions: Array(summaries.prefix(pageSize)), hasMore: summaries.count > pageSize)
            }
        }
    }

    public func lists(after: String?, limit: Int) throws(StoreError) -> [ListHead] {
        guard limit > 0 else { return [] }
        return try call { [client, logger] in
            let rows = try await client.query(
                """
                SELECT \(unescaped: Self.headColumns) FROM list_head
                WHERE NOT is_deleted AND id > \(after ?? "") ORDER BY id LIMIT \(limit)
                """, logger: logger)
            var heads: [ListHead] = []
            for try await row in rows { heads.append(try Self.decodeHead(row).head) }
            return heads
        }
    }

    /// A blob's bytes.
    static func bytes(_ buffer: ByteBuffer) -> [UInt8] { Array(buffer.readableBytesView) }
}
