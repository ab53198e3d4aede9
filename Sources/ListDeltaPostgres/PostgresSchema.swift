import ListDeltaStorage
import Logging
import PostgresNIO

/// The PostgreSQL schema and its migrations, run by whichever instance starts first.
///
/// Migrations run in one transaction holding a transaction-scoped advisory lock, so instances that start at once
/// wait for each other: the first applies what is missing, the others find it applied. A version table records
/// what was applied; never edit a registered migration, add one.
enum PostgresSchema {
    /// The advisory lock key migrations hold (an arbitrary constant: "ListDelta").
    static let migrationLock: Int64 = 0x4C69_7374_4465_6C74

    /// The notification channel commits are announced on.
    static let channel = "listdelta_commits"

    /// The migrations, in order; each is a list of statements.
    static let migrations: [[String]] = [
        [
            // Ids compare by their UTF-8 bytes (collation "C"), so paging order is byte order, as in SQLite.
            """
            CREATE TABLE list_head (
                id text COLLATE "C" PRIMARY KEY,
                revision bigint NOT NULL,
                is_deleted boolean NOT NULL,
                oldest_revision bigint NOT NULL,
                first_revision bigint NOT NULL,
                checkpoint_revision bigint NOT NULL,
                kind text NOT NULL,
                section_count bigint NOT NULL,
                item_count bigint NOT NULL,
                delta_bytes_since_checkpoint bigint NOT NULL,
                checkpoint_bytes bigint NOT NULL)
            """,
            "CREATE INDEX list_head_live ON list_head (id) WHERE NOT is_deleted",
            // Small columns first, blobs last (TOASTed out of line when large).
            """
            CREATE TABLE revision (
                list_id text COLLATE "C" NOT NULL REFERENCES list_head (id) ON DELETE CASCADE,
                revision bigint NOT NULL,
                is_checkpoint boolean NOT NULL,
                committed_at_ms bigint,
                origin text,
                origin_revision bigint,
                section_count bigint,
                item_count bigint,
                \(RevisionSummary.changeColumns.map { "\($0) bigint" }.joined(separator: ",\n    ")),
                delta bytea,
                snapshot bytea,
                undo bytea,
                PRIMARY KEY (list_id, revision))
            """,
            "CREATE INDEX revision_checkpoint ON revision (list_id, revision) WHERE is_checkpoint",
        ],
        [
            // Sources: kept apart from heads (a source may be attached before its list exists). The lease makes
            // one instance at a time fetch a source; lease times are the database's clock.
            """
            CREATE TABLE list_source (
                list_id text COLLATE "C" PRIMARY KEY,
                settings text NOT NULL,
                state text NOT NULL,
                generation bigint NOT NULL,
                next_fetch_at_ms bigint NOT NULL,
                is_failing boolean NOT NULL,
                lease_owner text,
                lease_until_ms bigint)
            """,
            "CREATE INDEX list_source_due ON list_source (next_fetch_at_ms)",
        ],
    ]

    /// Applies the migrations the database lacks.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS listdelta_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            var applied = 0
            for try await (version) in try await connection.query("SELECT coalesce(max(version), 0) FROM listdelta_schema", logger: logger)
                .decode(Int.self)
            {
                applied = version
            }
            guard applied <= migrations.count else {
                throw StoreError.database("the database's schema (version \(applied)) is newer than this ListDelta knows (\(migrations.count))")
            }
            for (index, statements) in migrations.enumerated() where index + 1 > applied {
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO listdelta_schema (version) VALUES (\(index + 1))", logger: logger)
                logger.info("migrated the PostgreSQL schema", metadata: ["version": "\(index + 1)"])
            }
            try await AppendFunction.create(on: connection, logger: logger)
            // Views: additions older releases ignore, not a numbered migration (see `ViewFunctions`).
            try await ViewFunctions.create(on: connection, logger: logger)
            // Kept answers of idempotent writes: the same kind of addition.
            try await IdempotencyTable.create(on: connection, logger: logger)
        }
    }
}
