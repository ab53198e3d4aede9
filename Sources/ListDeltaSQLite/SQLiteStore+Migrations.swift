import GRDB
import ListDeltaStorage

extension SQLiteStore {
    /// The schema history. Never edit a registered migration; add a new one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Ids compare by UTF-8 bytes (BINARY collation), so paging order is byte order.
            try db.create(table: HeadRecord.databaseTableName) { t in
                t.primaryKey("id", .text).collate(.binary)
                t.column("revision", .integer).notNull()
                t.column("is_deleted", .boolean).notNull()
                t.column("oldest_revision", .integer).notNull()
                t.column("first_revision", .integer).notNull()
                t.column("checkpoint_revision", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("section_count", .integer).notNull()
                t.column("item_count", .integer).notNull()
                t.column("delta_bytes_since_checkpoint", .integer).notNull()
                t.column("checkpoint_bytes", .integer).notNull()
            }
            // Paging over live lists skips tombstones through this partial index.
            try db.execute(sql: "CREATE INDEX list_head_live ON list_head(id) WHERE is_deleted = 0")

            // Small columns first, blobs last, so checkpoint lookups never touch blob overflow pages.
            try db.create(table: RevisionRecord.databaseTableName) { t in
                t.column("list_id", .text).notNull().collate(.binary)
                    .references(HeadRecord.databaseTableName, onDelete: .cascade)
                t.column("revision", .integer).notNull()
                t.column("is_checkpoint", .boolean).notNull()
                t.column("delta", .blob)
                t.column("snapshot", .blob)
                t.primaryKey(["list_id", "revision"])
            }
        }
        migrator.registerMigration("v2: revision history and undo") { db in
            // What each revision was (for the history) and the diff that undoes it (for rebuilding backwards).
            // Rows written before have NULLs: their history says so, and they are rebuilt forwards.
            try db.alter(table: RevisionRecord.databaseTableName) { t in
                t.add(column: "committed_at_ms", .integer)
                t.add(column: "origin", .text)
                t.add(column: "origin_revision", .integer)
                t.add(column: "section_count", .integer)
                t.add(column: "item_count", .integer)
                for column in RevisionSummary.changeColumns { t.add(column: column, .integer) }
                t.add(column: "undo", .blob)
            }
        }
        migrator.registerMigration("v3: sources") { db in
            // A list's source, kept apart from its head: a source may be attached before its list exists (its
            // first good fetch creates it). Settings and state are JSON text the service reads.
            try db.execute(sql: """
                CREATE TABLE list_source (
                    list_id TEXT PRIMARY KEY COLLATE BINARY,
                    settings TEXT NOT NULL,
                    state TEXT NOT NULL,
                    generation INTEGER NOT NULL,
                    next_fetch_at_ms INTEGER NOT NULL,
                    is_failing INTEGER NOT NULL,
                    lease_owner TEXT,
                    lease_until_ms INTEGER)
                """)
            try db.execute(sql: "CREATE INDEX list_source_due ON list_source (next_fetch_at_ms)")
        }
        migrator.registerMigration("v4: views") { db in
            // A view: a list whose content the service keeps equal to a query (the definition, JSON text) over
            // its base. Kept apart from heads, like sources: the row may exist before the view's list does.
            // `generation` grows with every attach or change, `base_step` is how far along its base the view's
            // content is (-1 until its first update); see `ViewStore`.
            try db.execute(sql: """
                CREATE TABLE list_view (
                    list_id TEXT PRIMARY KEY COLLATE BINARY,
                    base_id TEXT NOT NULL COLLATE BINARY,
                    definition TEXT NOT NULL,
                    generation INTEGER NOT NULL,
                    base_step INTEGER NOT NULL)
                """)
            try db.execute(sql: "CREATE INDEX list_view_base ON list_view (base_id)")
        }
        migrator.registerMigration("v5: idempotency keys") { db in
            // The first answer to each write sent with an `Idempotency-Key`, kept with its list (see
            // `IdempotentAnswer`): the same key is answered again from here, after a restart too. No foreign key: a
            // refusal is kept for a list that does not exist.
            try db.execute(sql: """
                CREATE TABLE list_idempotency (
                    list_id TEXT NOT NULL COLLATE BINARY,
                    key TEXT NOT NULL COLLATE BINARY,
                    fingerprint BLOB NOT NULL,
                    status INTEGER NOT NULL,
                    header_fields TEXT NOT NULL,
                    body BLOB NOT NULL,
                    body_is_gzip INTEGER NOT NULL,
                    kept_at_ms INTEGER NOT NULL,
                    PRIMARY KEY (list_id, key))
                """)
            try db.execute(sql: "CREATE INDEX list_idempotency_kept ON list_idempotency (list_id, kept_at_ms)")
        }
        migrator.registerMigration("v6: the sweep of expired answers") { db in
            // The answers of every list by age: the sweep of those a list that is never written again keeps.
            try db.execute(sql: "CREATE INDEX list_idempotency_age ON list_idempotency (kept_at_ms)")
        }
        return migrator
    }
}
