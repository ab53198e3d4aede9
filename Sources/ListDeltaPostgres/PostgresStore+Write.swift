public import ListDeltaStorage
import Logging
import NIOCore
import PostgresNIO

extension PostgresStore {
    /// Commits `write` in one round trip when this instance knows the list's head (see ``AppendFunction``): the
    /// head is decided here from the head last seen, and the database applies it only if that is still the head.
    /// A head unknown here (the first write of a list by this process, when it is not a create) is read first;
    /// a head that moved is decided again on the head the database returned, up to a bound, past which the write
    /// is reported as the conflict it most likely is. A view's write (``RevisionWrite/viewStep``) goes through the
    /// view append function instead (``ViewFunctions``), which also checks and moves the view in the same call.
    public func append(_ write: RevisionWrite) throws(StoreError) -> ListHead {
        if let turn = heldTurn(write.listID) {
            return try append(write, in: turn)
        }
        var base = knownHeads.head(write.listID)
        // Whether `base` is the database's answer in this call, rather than what this instance saw before.
        var isFresh = false
        if base == nil, write.expectedRevision != nil {
            base = try storedHead(write.listID)
            isFresh = true
        }
        for _ in 0..<Self.appendAttempts {
            let next: StoredHead
            do {
                next = try StoredHead.appending(write, to: base, retention: configuration.retention)
            } catch .conflict where !isFresh {
                // The writer knows of a revision this instance has not seen: ask the database.
                base = try storedHead(write.listID)
                isFresh = true
                continue
            }
            let announcement = AnnouncementPayload(instance: instance, kind: .committed, revision: next.head.revision, list: write.listID, trace: write.trace).text
            let result: AppendFunction.Result
            do {
                let statement = AppendFunction.statement(write, next: next, base: base, announcement: announcement)
                result = try direct { () throws(StoreError) in
                    try statement.result(of: appendConnections.rows(of: statement.query, seconds: configuration.timeoutSeconds))
                }
            } catch {
                // Whether it committed is unknown: the next write of this list reads its head first.
                knownHeads.forget(write.listID)
                throw error
            }
            switch result {
            case .applied:
                knownHeads.remember(next)
                return next.head
            case .headMoved(let current):
                if let current { knownHeads.remember(current) } else { knownHeads.forget(write.listID) }
                base = current
                isFresh = true
            case .superseded(let refusal):
                // The head was `base`, and nothing was written.
                throw refusal
            }
        }
        throw .conflict(current: base.flatMap { $0.head.isDeleted ? nil : $0.head.revision })
    }

    /// How many times one append is decided again on a head that moved before it is reported as a conflict.
    static let appendAttempts = 4

    public func delete(_ id: String, expectedRevision: Int?) throws(StoreError) -> ListHead? {
        let instance = self.instance
        // The head changes (or may have, if the call fails): the next append reads it first.
        defer { knownHeads.forget(id) }
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
                try await connection.query("DELETE FROM list_idempotency WHERE list_id = \(id)", logger: logger)
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

    /// `NOTIFY` inside the transaction: delivered to every listener if, and when, it commits.
    static func announce(_ payload: AnnouncementPayload, on connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(PostgresSchema.channel), \(payload.text))", logger: logger)
    }
}
