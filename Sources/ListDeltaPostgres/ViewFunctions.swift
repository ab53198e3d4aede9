import ListDeltaStorage
import Logging
import PostgresNIO

/// The views' table and the server-side functions that guard a view's writes, created as additions older
/// releases ignore.
///
/// No numbered migration (``PostgresSchema/migrations``) adds them: an instance refuses a database whose schema
/// version is newer than it knows, so a numbered migration would make the instances of the previous release
/// refuse to start (or restart) during a rolling upgrade. The table is created `IF NOT EXISTS` in the migration
/// transaction, under its lock, like the append function (``AppendFunction``): a table the previous release does
/// not know, which it never reads nor writes. Its functions carry a version in their names and are never
/// replaced: a changed body is a new function (`…_v2`).
///
/// A view's write takes the view list's advisory lock, as every write of the list does, and checks the view's row
/// under it (``ViewStep/refusal(stored:)``): of two instances updating one view for different base revisions,
/// whichever commits second finds the first's step and commits only if its own is higher. So the view's
/// revisions stay in base order.
enum ViewFunctions {
    static let appendName = "listdelta_view_append_v1"
    static let advanceName = "listdelta_view_advance_v1"

    /// The table and its index (ids compare by their bytes, as everywhere).
    static let tableStatements = [
        """
        CREATE TABLE IF NOT EXISTS list_view (
            list_id text COLLATE "C" PRIMARY KEY,
            base_id text COLLATE "C" NOT NULL,
            definition text NOT NULL,
            generation bigint NOT NULL,
            base_step bigint NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS list_view_base ON list_view (base_id)",
    ]

    /// Creates what the database lacks (run in the migration transaction, under its lock, after the append
    /// function, which the view append calls).
    static func create(on connection: PostgresConnection, logger: Logger) async throws {
        var exists = false
        for try await found in try await connection.query("SELECT to_regclass('list_view') IS NOT NULL", logger: logger).decode(Bool.self) {
            exists = found
        }
        if !exists {
            for statement in tableStatements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            logger.info("created the PostgreSQL views table", metadata: ["table": "list_view"])
        }
        try await AppendFunction.createIfMissing(appendName, definition: appendDefinition, on: connection, logger: logger)
        try await AppendFunction.createIfMissing(advanceName, definition: advanceDefinition, on: connection, logger: logger)
    }

    /// `listdelta_view_append_v1(p_view_generation, p_view_step, <listdelta_append_v1's parameters>)`: under the
    /// list's advisory lock, first the head's compare-and-set check (a write stale both ways is a conflict, as in
    /// SQLite), then the view's row (locked), then ``AppendFunction``'s function (the lock is re-entrant), then the
    /// view's step. Returns one row: `status` (`applied`, `head_moved` with the head as it is in the `head_…`
    /// columns, all NULL when the list has no row, or `superseded` with the view's `view_generation` and
    /// `view_base_step`, NULL when it is not a view).
    private static var appendDefinition: String {
        let nullHead = AppendFunction.returnedColumns.map { "NULL::\($0.split(separator: " ")[1])" }.joined(separator: ", ")
        return """
            CREATE FUNCTION \(appendName)(
                p_view_generation bigint, p_view_step bigint, \(AppendFunction.parameterDeclarations))
            RETURNS TABLE (status text, view_generation bigint, view_base_step bigint, \
            \(AppendFunction.returnedColumns.map { "head_\($0)" }.joined(separator: ", ")))
            LANGUAGE plpgsql AS $body$
            DECLARE
                current_head list_head;
                current_view list_view;
                appended record;
            BEGIN
            \(AppendFunction.lockAndCheckHead(returningFirst: "'head_moved'::text, NULL::bigint, NULL::bigint"))
                SELECT * INTO current_view FROM list_view v WHERE v.list_id = p_id FOR UPDATE;
                IF NOT FOUND OR current_view.generation <> p_view_generation OR current_view.base_step >= p_view_step THEN
                    RETURN QUERY SELECT 'superseded'::text, current_view.generation, current_view.base_step, \(nullHead);
                    RETURN;
                END IF;
                SELECT * INTO appended FROM \(AppendFunction.name)(\(AppendFunction.parameterNames));
                IF NOT appended.applied THEN
                    RETURN QUERY SELECT 'head_moved'::text, NULL::bigint, NULL::bigint, appended.head_id, appended.head_revision,
                        appended.head_is_deleted, appended.head_oldest_revision, appended.head_first_revision,
                        appended.head_checkpoint_revision, appended.head_kind, appended.head_section_count,
                        appended.head_item_count, appended.head_delta_bytes_since_checkpoint, appended.head_checkpoint_bytes;
                    RETURN;
                END IF;
                UPDATE list_view v SET base_step = p_view_step WHERE v.list_id = p_id;
                RETURN QUERY SELECT 'applied'::text, p_view_generation, p_view_step, \(nullHead);
            END
            $body$
            """
    }

    /// `listdelta_view_advance_v1(p_id text, p_view_generation bigint, p_view_step bigint, p_at_revision bigint)
    /// RETURNS boolean`: under the list's advisory lock, when the list's live revision is `p_at_revision` (NULL: no
    /// live list) and the view has that generation and a lower step, records the step. Whether it did.
    private static var advanceDefinition: String {
        """
        CREATE FUNCTION \(advanceName)(p_id text, p_view_generation bigint, p_view_step bigint, p_at_revision bigint)
        RETURNS boolean
        LANGUAGE plpgsql AS $body$
        DECLARE
            live_revision bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended(p_id, 0));
            SELECT h.revision INTO live_revision FROM list_head h WHERE h.id = p_id AND NOT h.is_deleted;
            IF live_revision IS DISTINCT FROM p_at_revision THEN
                RETURN false;
            END IF;
            UPDATE list_view v SET base_step = p_view_step
                WHERE v.list_id = p_id AND v.generation = p_view_generation AND v.base_step < p_view_step;
            RETURN FOUND;
        END
        $body$
        """
    }

    /// The call of the view append function that commits `next` (decided from `base`, the head the caller last
    /// saw) with `write`'s rows, if the head is still `base` and `step` moves the view forward.
    static func appendStatement(
        _ write: RevisionWrite, step: ViewStep, next: StoredHead, base: StoredHead?, announcement: String
    ) -> AppendFunction.Statement {
        let head = next.head
        let summary = write.summary
        let counts = summary?.changeCounts ?? Array(repeating: nil, count: RevisionSummary.changeColumns.count)
        let delta = write.delta.map { ByteBuffer(bytes: $0) }
        let snapshot = write.snapshot.map { ByteBuffer(bytes: $0) }
        let undo = write.undo.map { ByteBuffer(bytes: $0) }
        let query: PostgresQuery = """
            SELECT * FROM \(unescaped: appendName)(\(step.generation), \(step.baseStep), \
            \(write.listID), \(base?.head.revision), \(base?.head.isDeleted), \
            \(head.revision), \(head.oldestRevision), \(head.firstRevision), \(next.checkpointRevision), \(head.kind), \
            \(head.sectionCount), \(head.itemCount), \(head.deltaBytesSinceCheckpoint), \(head.checkpointBytes), \
            \(summary?.committedAtMilliseconds), \(summary?.origin?.storedName), \(summary?.origin?.storedRevision), \
            \(summary?.sectionCount), \(summary?.itemCount), \(counts[0]), \(counts[1]), \(counts[2]), \(counts[3]), \
            \(counts[4]), \(counts[5]), \(counts[6]), \(counts[7]), \(delta), \(snapshot), \(undo), \(announcement))
            """
        return AppendFunction.Statement(query: query) { rows in try appendResult(of: rows, step: step) }
    }

    private static func appendResult(of rows: [PostgresRow], step: ViewStep) throws -> AppendFunction.Result {
        for row in rows {
            let (status, viewGeneration, viewStep, id, revision, isDeleted, oldest, first, checkpoint, kind, sections, items, deltaBytes,
                checkpointBytes) =
                try row.decode((String, Int?, Int?, String?, Int?, Bool?, Int?, Int?, Int?, String?, Int?, Int?, Int?, Int?).self)
            switch status {
            case "applied":
                return .applied
            case "superseded":
                let stored = viewGeneration.flatMap { generation in viewStep.map { (generation: generation, baseStep: $0) } }
                return .superseded(step.refusal(stored: stored) ?? .database("\(appendName) refused a write that moves the view forward"))
            default:
                return .headMoved(PostgresStore.storedHead(
                    from: (id, revision, isDeleted, oldest, first, checkpoint, kind, sections, items, deltaBytes, checkpointBytes)))
            }
        }
        throw StoreError.database("\(appendName) returned no row")
    }

    /// Calls the view advance function.
    static func advance(list: String, step: ViewStep, atRevision: Int?, client: PostgresClient, logger: Logger) async throws -> Bool {
        for try await advanced in try await client.query(
            "SELECT \(unescaped: advanceName)(\(list), \(step.generation), \(step.baseStep), \(atRevision))", logger: logger
        ).decode(Bool.self) {
            return advanced
        }
        throw StoreError.database("\(advanceName) returned no row")
    }

    /// Calls the view advance function for many views in one statement (one transaction, one round trip). The
    /// calls run in the order of the lists' ids, so that two such statements take the lists' advisory locks in the
    /// same order and never wait for each other in a cycle.
    static func advance(_ advances: [ViewAdvance], client: PostgresClient, logger: Logger) async throws -> [Bool] {
        let order = advances.indices.sorted { advances[$0].list < advances[$1].list }
        let lists = order.map { advances[$0].list }
        let generations = order.map { advances[$0].step.generation }
        let steps = order.map { advances[$0].step.baseStep }
        // No list is at revision -1: it stands for "absent or deleted" (NULL), which an array of bigint cannot hold.
        let revisions = order.map { advances[$0].atRevision ?? -1 }
        var results = Array(repeating: false, count: advances.count)
        var index = 0
        for try await advanced in try await client.query(
            """
            SELECT \(unescaped: advanceName)(t.list, t.generation, t.step, NULLIF(t.revision, -1))
            FROM unnest(\(lists)::text[], \(generations)::bigint[], \(steps)::bigint[], \(revisions)::bigint[])
                WITH ORDINALITY AS t(list, generation, step, revision, position)
            ORDER BY t.position
            """, logger: logger
        ).decode(Bool.self) {
            guard index < order.count else { break }
            results[order[index]] = advanced
            index += 1
        }
        guard index == order.count else { throw StoreError.database("\(advanceName) returned \(index) rows for \(order.count) views") }
        return results
    }
}
