public import ListDeltaStorage
import Logging
import NIOCore
import PostgresNIO

extension PostgresStore {
    public func append(_ write: RevisionWrite) throws(StoreError) -> ListHead {
        let retention = configuration.retention
        let instance = self.instance
        return try call { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lock(write.listID, on: connection, logger)
                let current = try await Self.storedHead(write.listID, on: connection, logger: logger, locking: false)
                let next = try StoredHead.appending(write, to: current, retention: retention)
                try await Self.save(next, on: connection, logger)
                try await Self.insertRevision(write, number: next.head.revision, on: connection, logger)
                // Rows before the latest checkpoint at or below the oldest served revision rebuild nothing served.
                try await connection.query(
                    """
                    DELETE FROM revision WHERE list_id = \(write.listID) AND revision < (SELECT max(revision) FROM revision
                        WHERE list_id = \(write.listID) AND is_checkpoint AND revision <= \(next.head.oldestRevision))
                    """, logger: logger)
                try await Self.announce(AnnouncementPayload(instance: instance, kind: .committed, revision: next.head.revision, list: write.listID), on: connection, logger)
                return next.head
            }
        }
    }

    public func delete(_ id: String, expectedRevision: Int?) throws(StoreError) -> ListHead? {
        let instance = self.instance
        return try call { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                try await Self.lock(id, on: connection, logger)
                guard let current = try await Self.storedHead(id, on: connection, logger: logger, locking: false), !current.head.isDeleted else {
                    return nil
                }
                if let expectedRevision, expectedRevision != current.head.revision {
                    throw StoreError.conflict(current: current.head.revision)
                }
                try await Self.save(current.tombstone, on: connection, logger)
                try await connection.query("DELETE FROM revision WHERE list_id = \(id)", logger: logger)
                try await Self.announce(AnnouncementPayload(instance: instance, kind: .deleted, revision: current.head.revision, list: id), on: connection, logger)
                return current.head
            }
        }
    }

    /// Serialises writers of `id` across instances until the transaction ends (ids that hash alike share a lock,
    /// which only serialises them).
    private static func lock(_ id: String, on connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(id), 0))", logger: logger)
    }

    private static func save(_ stored: StoredHead, on connection: PostgresConnection, _ logger: Logger) async throws {
        let head = stored.head
        try await connection.query(
            """
            INSERT INTO list_head (\(unescaped: headColumns)) VALUES (\(head.id), \(head.revision), \(head.isDeleted), \(head.oldestRevision), \
            \(head.firstRevision), \(stored.checkpointRevision), \(head.kind), \(head.sectionCount), \(head.itemCount), \
            \(head.deltaBytesSinceCheckpoint), \(head.checkpointBytes))
            ON CONFLICT (id) DO UPDATE SET revision = EXCLUDED.revision, is_deleted = EXCLUDED.is_deleted,
                oldest_revision = EXCLUDED.oldest_revision, first_revision = EXCLUDED.first_revision,
                checkpoint_revision = EXCLUDED.checkpoint_revision, kind = EXCLUDED.kind, section_count = EXCLUDED.section_count,
                item_count = EXCLUDED.item_count, delta_bytes_since_checkpoint = EXCLUDED.delta_bytes_since_checkpoint,
                checkpoint_bytes = EXCLUDED.checkpoint_bytes
            """, logger: logger)
    }

    private static func insertRevision(_ write: RevisionWrite, number: Int, on connection: PostgresConnection, _ logger: Logger) async throws {
        let summary = write.summary
        let counts = summary?.changeCounts ?? Array(repeating: nil, count: 8)
        let committedAt = summary?.committedAtMilliseconds
        let origin = summary?.origin?.storedName
        let originRevision = summary?.origin?.revertedTo
        let delta = write.delta.map { ByteBuffer(bytes: $0) }
        let snapshot = write.snapshot.map { ByteBuffer(bytes: $0) }
        let undo = write.undo.map { ByteBuffer(bytes: $0) }
        try await connection.query(
            """
            INSERT INTO revision (list_id, revision, is_checkpoint, committed_at_ms, origin, origin_revision, section_count, item_count, \
            \(unescaped: RevisionSummary.changeColumns.joined(separator: ", ")), delta, snapshot, undo)
            VALUES (\(write.listID), \(number), \(write.snapshot != nil), \(committedAt), \(origin), \(originRevision), \
            \(summary?.sectionCount), \(summary?.itemCount), \(counts[0]), \(counts[1]), \(counts[2]), \(counts[3]), \
            \(counts[4]), \(counts[5]), \(counts[6]), \(counts[7]), \(delta), \(snapshot), \(undo))
            """, logger: logger)
    }

    /// `NOTIFY` inside the transaction: delivered to every listener if, and when, it commits.
    private static func announce(_ payload: AnnouncementPayload, on connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(PostgresSchema.channel), \(payload.text))", logger: logger)
    }
}
