import ListDeltaStorage
import Logging
import PostgresNIO

/// The server-side function that commits an append in one round trip: a compare-and-set of the list's head.
///
/// The service decides the new head with ``StoredHead/appending(_:to:retention:)`` from the head it last saw, as
/// every store does; the function then, in one implicit transaction, takes the list's advisory lock, checks that
/// the head is still the one the decision started from (same revision and deletion state, or no row), and only
/// then writes the head, the revision row, prunes rows no served revision needs and sends the announcement. When
/// the head moved, it writes nothing and returns the head as it is, and the store decides again on that.
///
/// The function's name carries its version: a changed body is a new function (`…_v2`), never a replacement, so
/// instances of different releases can share one database during a rollout. It changes no table, so the schema
/// version stays as it was, and an instance of the previous release (which writes with its own statements under
/// the same advisory lock) still starts and writes against a database that has it.
enum AppendFunction {
    static let name = "listdelta_append_v1"

    /// Creates the function unless the database has it (run in the migration transaction, under its lock).
    static func create(on connection: PostgresConnection, logger: Logger) async throws {
        try await createIfMissing(name, definition: definition, on: connection, logger: logger)
    }

    /// Creates the function `name` with `definition` unless the database has a function of that name (a versioned
    /// name: a function is never replaced).
    static func createIfMissing(_ name: String, definition: String, on connection: PostgresConnection, logger: Logger) async throws {
        var exists = false
        for try await count in try await connection.query(
            "SELECT count(*) FROM pg_proc WHERE proname = \(name) AND pronamespace = current_schema()::regnamespace", logger: logger
        ).decode(Int.self) {
            exists = count > 0
        }
        guard !exists else { return }
        try await connection.query(PostgresQuery(unsafeSQL: definition), logger: logger)
        logger.info("created a PostgreSQL function", metadata: ["function": "\(name)"])
    }

    /// The head columns the function returns, after `applied`, when it did not apply the write.
    static let returnedColumns = [
        "id text", "revision bigint", "is_deleted boolean", "oldest_revision bigint", "first_revision bigint",
        "checkpoint_revision bigint", "kind text", "section_count bigint", "item_count bigint",
        "delta_bytes_since_checkpoint bigint", "checkpoint_bytes bigint",
    ]

    /// The function's parameters, in order, with their types.
    private static var parameters: [(name: String, type: String)] {
        let head: [(name: String, type: String)] = [
            ("p_id", "text"), ("p_expected_revision", "bigint"), ("p_expected_deleted", "boolean"), ("p_revision", "bigint"),
            ("p_oldest", "bigint"), ("p_first", "bigint"), ("p_checkpoint", "bigint"), ("p_kind", "text"), ("p_section_count", "bigint"),
            ("p_item_count", "bigint"), ("p_delta_bytes", "bigint"), ("p_checkpoint_bytes", "bigint"), ("p_committed_at", "bigint"),
            ("p_origin", "text"), ("p_origin_revision", "bigint"), ("p_summary_sections", "bigint"), ("p_summary_items", "bigint"),
        ]
        let blobs: [(name: String, type: String)] = [("p_delta", "bytea"), ("p_snapshot", "bytea"), ("p_undo", "bytea"), ("p_announcement", "text")]
        return head + RevisionSummary.changeColumns.map { ("p_\($0)", "bigint") } + blobs
    }

    /// The parameters declared, for a function that takes the same ones (the view append).
    static var parameterDeclarations: String { parameters.map { "\($0.name) \($0.type)" }.joined(separator: ", ") }

    /// The parameters' names in order, for a function that passes them on to this one.
    static var parameterNames: String { parameters.map(\.name).joined(separator: ", ") }

    private static var definition: String {
        let changes = RevisionSummary.changeColumns
        return """
            CREATE FUNCTION \(name)(\(parameterDeclarations))
            RETURNS TABLE (applied boolean, \(returnedColumns.map { "head_\($0)" }.joined(separator: ", ")))
            LANGUAGE plpgsql AS $body$
            DECLARE
                current_head list_head;
            BEGIN
            \(lockAndCheckHead(returningFirst: "false"))
                INSERT INTO list_head (id, revision, is_deleted, oldest_revision, first_revision, checkpoint_revision, kind,
                    section_count, item_count, delta_bytes_since_checkpoint, checkpoint_bytes)
                VALUES (p_id, p_revision, false, p_oldest, p_first, p_checkpoint, p_kind, p_section_count, p_item_count,
                    p_delta_bytes, p_checkpoint_bytes)
                ON CONFLICT (id) DO UPDATE SET revision = EXCLUDED.revision, is_deleted = EXCLUDED.is_deleted,
                    oldest_revision = EXCLUDED.oldest_revision, first_revision = EXCLUDED.first_revision,
                    checkpoint_revision = EXCLUDED.checkpoint_revision, kind = EXCLUDED.kind,
                    section_count = EXCLUDED.section_count, item_count = EXCLUDED.item_count,
                    delta_bytes_since_checkpoint = EXCLUDED.delta_bytes_since_checkpoint,
                    checkpoint_bytes = EXCLUDED.checkpoint_bytes;
                INSERT INTO revision (list_id, revision, is_checkpoint, committed_at_ms, origin, origin_revision, section_count,
                    item_count, \(changes.joined(separator: ", ")), delta, snapshot, undo)
                VALUES (p_id, p_revision, p_snapshot IS NOT NULL, p_committed_at, p_origin, p_origin_revision, p_summary_sections,
                    p_summary_items, \(changes.map { "p_\($0)" }.joined(separator: ", ")), p_delta, p_snapshot, p_undo);
                -- Rows before the latest checkpoint at or below the oldest served revision rebuild nothing served.
                DELETE FROM revision r WHERE r.list_id = p_id AND r.revision < (SELECT max(c.revision) FROM revision c
                    WHERE c.list_id = p_id AND c.is_checkpoint AND c.revision <= p_oldest);
                PERFORM pg_notify('\(PostgresSchema.channel)', p_announcement);
                RETURN QUERY SELECT true, NULL::text, NULL::bigint, NULL::boolean, NULL::bigint, NULL::bigint, NULL::bigint,
                    NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint;
            END
            $body$
            """
    }

    /// The plpgsql every append function starts with (a `current_head list_head` variable declared): the list's
    /// advisory lock, then the head check. When the head is not the one the write was decided from (`p_expected_*`:
    /// another revision or deletion state, or a row where none was expected, or none where one was), it returns one
    /// row, `first` (the columns before the head's, as SQL) and the head as it is (all NULL for no row), and stops.
    static func lockAndCheckHead(returningFirst first: String) -> String {
        let headColumns = returnedColumns.map { "h.\($0.split(separator: " ")[0])" }.joined(separator: ", ")
        return """
                PERFORM pg_advisory_xact_lock(hashtextextended(p_id, 0));
                SELECT * INTO current_head FROM list_head h WHERE h.id = p_id;
                IF (FOUND AND (p_expected_revision IS NULL OR current_head.revision <> p_expected_revision
                        OR current_head.is_deleted <> p_expected_deleted))
                    OR (NOT FOUND AND p_expected_revision IS NOT NULL) THEN
                    RETURN QUERY SELECT \(first), \(headColumns)
                        FROM (SELECT 1) AS one LEFT JOIN list_head h ON h.id = p_id;
                    RETURN;
                END IF;
            """
    }

    /// What one call did: applied the write, or found the head elsewhere (`nil`: the list has no row), or (a view's
    /// write, ``ViewFunctions``) found that the write would not move the view forward.
    enum Result {
        case applied
        case headMoved(StoredHead?)
        case superseded(StoreError)
    }

    /// One call of an append function: its query, and how to read the rows it returns.
    struct Statement: Sendable {
        let query: PostgresQuery
        let decode: @Sendable ([PostgresRow]) throws -> Result

        /// What the call did, read from the rows it returned.
        /// - Throws: a row that does not decode, as a ``StoreError``.
        func result(of rows: [PostgresRow]) throws(StoreError) -> Result {
            do {
                return try decode(rows)
            } catch {
                throw StoreError(postgres: error)
            }
        }
    }

    /// The call that commits `write` (decided from `base`, the head the caller last saw): of this function through
    /// the keyed append (``IdempotencyTable``, which also keeps the write's answer), or of the view append function
    /// (``ViewFunctions``) for a view's write.
    static func statement(_ write: RevisionWrite, next: StoredHead, base: StoredHead?, announcement: String) -> Statement {
        if let step = write.viewStep {
            return ViewFunctions.appendStatement(write, step: step, next: next, base: base, announcement: announcement)
        }
        return Statement(query: query(write, next: next, base: base, announcement: announcement), decode: result(of:))
    }

    private static func query(_ write: RevisionWrite, next: StoredHead, base: StoredHead?, announcement: String) -> PostgresQuery {
        let head = next.head
        let summary = write.summary
        let counts = summary?.changeCounts ?? Array(repeating: nil, count: RevisionSummary.changeColumns.count)
        let delta = write.delta.map { ByteBuffer(bytes: $0) }
        let snapshot = write.snapshot.map { ByteBuffer(bytes: $0) }
        let undo = write.undo.map { ByteBuffer(bytes: $0) }
        let kept = write.answer?.answer
        return """
            SELECT * FROM \(unescaped: IdempotencyTable.appendName)(\(kept?.key), \(kept.map { ByteBuffer(bytes: $0.fingerprint) }), \
            \(kept?.status), \(kept?.headerFields), \(kept.map { ByteBuffer(bytes: $0.body) }), \(kept?.bodyIsGzip), \
            \(kept?.keptAtMilliseconds), \(write.answer?.expiredBeforeMilliseconds), \(write.listID), \(base?.head.revision), \(base?.head.isDeleted), \
            \(head.revision), \(head.oldestRevision), \(head.firstRevision), \(next.checkpointRevision), \(head.kind), \
            \(head.sectionCount), \(head.itemCount), \(head.deltaBytesSinceCheckpoint), \(head.checkpointBytes), \
            \(summary?.committedAtMilliseconds), \(summary?.origin?.storedName), \(summary?.origin?.storedRevision), \
            \(summary?.sectionCount), \(summary?.itemCount), \(counts[0]), \(counts[1]), \(counts[2]), \(counts[3]), \
            \(counts[4]), \(counts[5]), \(counts[6]), \(counts[7]), \(delta), \(snapshot), \(undo), \(announcement))
            """
    }

    private static func result(of rows: [PostgresRow]) throws -> Result {
        for row in rows {
            let (applied, id, revision, isDeleted, oldest, first, checkpoint, kind, sections, items, deltaBytes, checkpointBytes) =
                try row.decode((Bool?, String?, Int?, Bool?, Int?, Int?, Int?, String?, Int?, Int?, Int?, Int?).self)
            if applied == true { return .applied }
            let head = PostgresStore.storedHead(
                from: (id, revision, isDeleted, oldest, first, checkpoint, kind, sections, items, deltaBytes, checkpointBytes))
            // NULL: the write's Idempotency-Key was answered already (``IdempotencyTable``).
            guard applied != nil else { return .superseded(.conflict(current: head.flatMap { $0.head.isDeleted ? nil : $0.head.revision })) }
            return .headMoved(head)
        }
        throw StoreError.database("\(name) returned no row")
    }
}
