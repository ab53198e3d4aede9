public import ListDeltaStorage
import Logging
import PostgresNIO

/// The table of kept answers (``IdempotentAnswer``) and the append function that keeps one in the append's own
/// transaction, created as additions older releases ignore (like ``ViewFunctions``: no numbered migration, so the
/// instances of the previous release still start during a rolling upgrade; they never read nor write the table).
///
/// `listdelta_keyed_append_v1(p_key, p_fingerprint, p_status, p_header_fields, p_body, p_body_is_gzip, p_kept_at,
/// p_expired_before, <listdelta_append_v1's parameters>)` first refuses a write whose key the list has answered (not
/// expired): it returns `applied` NULL with the head as it is, and the store throws ``StoreError/conflict(current:)``,
/// which sends the caller to the kept answer. Otherwise it calls ``AppendFunction``'s function and, when it applied
/// the write with a key (`p_key` not NULL), forgets the list's expired answers and keeps this one (unless the key
/// has one), all in one transaction: the answer is exactly as durable as the revision. It returns what the append
/// function returned. Every append of a list (not a view's) goes through it, with NULL keyed parameters when the
/// write carries no key.
enum IdempotencyTable {
    static let appendName = "listdelta_keyed_append_v1"

    /// The table and its index. No foreign key: a refusal is kept for a list that does not exist.
    static let tableStatements = [
        """
        CREATE TABLE IF NOT EXISTS list_idempotency (
            list_id text COLLATE "C" NOT NULL,
            key text COLLATE "C" NOT NULL,
            fingerprint bytea NOT NULL,
            status integer NOT NULL,
            header_fields text NOT NULL,
            body bytea NOT NULL,
            body_is_gzip boolean NOT NULL,
            kept_at_ms bigint NOT NULL,
            PRIMARY KEY (list_id, key))
        """,
        "CREATE INDEX IF NOT EXISTS list_idempotency_kept ON list_idempotency (list_id, kept_at_ms)",
        // The answers of every list by age: the sweep of those a list that is never written again keeps.
        "CREATE INDEX IF NOT EXISTS list_idempotency_age ON list_idempotency (kept_at_ms)",
    ]

    /// Creates what the database lacks (in the migration transaction, under its lock, after the append function).
    static func create(on connection: PostgresConnection, logger: Logger) async throws {
        for statement in tableStatements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await AppendFunction.createIfMissing(appendName, definition: appendDefinition, on: connection, logger: logger)
    }

    private static var appendDefinition: String {
        """
        CREATE FUNCTION \(appendName)(
            p_key text, p_fingerprint bytea, p_status bigint, p_header_fields text, p_body bytea, p_body_is_gzip boolean,
            p_kept_at bigint, p_expired_before bigint, \(AppendFunction.parameterDeclarations))
        RETURNS TABLE (applied boolean, \(AppendFunction.returnedColumns.map { "head_\($0)" }.joined(separator: ", ")))
        LANGUAGE plpgsql AS $body$
        DECLARE
            appended record;
        BEGIN
            -- A key answered (and not expired) is never applied again: refused as a moved head would be, so that the
            -- caller finds the answer kept.
            PERFORM pg_advisory_xact_lock(hashtextextended(p_id, 0));
            IF p_key IS NOT NULL AND EXISTS (SELECT 1 FROM list_idempotency i WHERE i.list_id = p_id AND i.key = p_key
                    AND i.kept_at_ms >= p_expired_before) THEN
                RETURN QUERY SELECT NULL::boolean, \(AppendFunction.returnedColumns.map { "h.\($0.split(separator: " ")[0])" }.joined(separator: ", "))
                    FROM (SELECT 1) AS one LEFT JOIN list_head h ON h.id = p_id;
                RETURN;
            END IF;
            SELECT * INTO appended FROM \(AppendFunction.name)(\(AppendFunction.parameterNames));
            IF appended.applied AND p_key IS NOT NULL THEN
                DELETE FROM list_idempotency WHERE list_id = p_id AND kept_at_ms < p_expired_before;
                INSERT INTO list_idempotency (list_id, key, fingerprint, status, header_fields, body, body_is_gzip, kept_at_ms)
                VALUES (p_id, p_key, p_fingerprint, p_status, p_header_fields, p_body, p_body_is_gzip, p_kept_at)
                ON CONFLICT (list_id, key) DO NOTHING;
            END IF;
            RETURN QUERY SELECT appended.applied, \(AppendFunction.returnedColumns.map { "appended.head_\($0.split(separator: " ")[0])" }.joined(separator: ", "));
        END
        $body$
        """
    }
}

extension PostgresStore {
    public func idempotentAnswer(_ listID: String, key: String) throws(StoreError) -> IdempotentAnswer? {
        try call { [client, logger] in
            let rows = try await client.query(
                """
                SELECT key, fingerprint, status, header_fields, body, body_is_gzip, kept_at_ms FROM list_idempotency
                WHERE list_id = \(listID) AND key = \(key)
                """, logger: logger)
            for try await (key, fingerprint, status, headerFields, body, isGzip, keptAt) in rows.decode(
                (String, ByteBuffer, Int, String, ByteBuffer, Bool, Int64).self)
            {
                return IdempotentAnswer(
                    key: key, fingerprint: Array(buffer: fingerprint), status: status, headerFields: headerFields, body: Array(buffer: body),
                    bodyIsGzip: isGzip, keptAtMilliseconds: keptAt)
            }
            return nil
        }
    }

    /// Rows a write holds (its list's expired answers, which it forgets too) are skipped, never waited for: the sweep
    /// and a write never deadlock on them.
    public func forgetAnswers(keptBefore milliseconds: Int64, limit: Int) throws(StoreError) -> Int {
        try call { [client, logger] in
            let rows = try await client.query(
                """
                WITH gone AS (DELETE FROM list_idempotency WHERE ctid IN
                    (SELECT ctid FROM list_idempotency WHERE kept_at_ms < \(milliseconds) ORDER BY kept_at_ms LIMIT \(limit)
                     FOR UPDATE SKIP LOCKED)
                    RETURNING 1)
                SELECT count(*)::bigint FROM gone
                """, logger: logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    public func keep(_ kept: AnswerToKeep, for listID: String) throws(StoreError) {
        let answer = kept.answer
        try call { [client, logger] in
            // One statement, so one transaction: the expired answers go and this one is kept together.
            try await client.query(
                """
                WITH expired AS (DELETE FROM list_idempotency WHERE list_id = \(listID) AND kept_at_ms < \(kept.expiredBeforeMilliseconds))
                INSERT INTO list_idempotency (list_id, key, fingerprint, status, header_fields, body, body_is_gzip, kept_at_ms)
                VALUES (\(listID), \(answer.key), \(ByteBuffer(bytes: answer.fingerprint)), \(answer.status), \(answer.headerFields), \
                \(ByteBuffer(bytes: answer.body)), \(answer.bodyIsGzip), \(answer.keptAtMilliseconds))
                ON CONFLICT (list_id, key) DO NOTHING
                """, logger: logger)
        }
    }
}
