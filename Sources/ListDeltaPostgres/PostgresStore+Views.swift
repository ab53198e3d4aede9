public import ListDeltaStorage
import Logging
import PostgresNIO

/// Views in PostgreSQL, shared by every instance (the table and functions: ``ViewFunctions``). A view's row
/// changes under its list's advisory lock, the lock every write of the list takes, so a change of the view and a
/// write computed for its previous generation never interleave.
extension PostgresStore: ViewStore {
    private static let viewColumns = "list_id, base_id, definition, generation, base_step"

    private static func decodeView(_ row: PostgresRow) throws -> StoredView {
        let (list, base, definition, generation, baseStep) = try row.decode((String, String, String, Int, Int).self)
        return StoredView(list: list, base: base, definition: definition, generation: generation, baseStep: baseStep)
    }

    public func view(_ list: String) throws(StoreError) -> StoredView? {
        try call { [client, logger] in
            for try await row in try await client.query(
                "SELECT \(unescaped: Self.viewColumns) FROM list_view WHERE list_id = \(list)", logger: logger)
            {
                return try Self.decodeView(row)
            }
            return nil
        }
    }

    public func views(of base: String) throws(StoreError) -> [StoredView] {
        try call { [client, logger] in
            var views: [StoredView] = []
            for try await row in try await client.query(
                "SELECT \(unescaped: Self.viewColumns) FROM list_view WHERE base_id = \(base) ORDER BY list_id", logger: logger)
            {
                views.append(try Self.decodeView(row))
            }
            return views
        }
    }

    public func allViews() throws(StoreError) -> [StoredView] {
        try call { [client, logger] in
            var views: [StoredView] = []
            for try await row in try await client.query("SELECT \(unescaped: Self.viewColumns) FROM list_view ORDER BY list_id", logger: logger) {
                views.append(try Self.decodeView(row))
            }
            return views
        }
    }

    public func attachView(list: String, base: String, definition: String, maximumViews: Int) throws(StoreError) -> (created: Bool, view: StoredView) {
        // Announced like a source's change (kind `s`: the list is fed from elsewhere now), which every release
        // that knows sources understands: the other instances stop taking direct writes of the list and read the
        // views again.
        let announcement = AnnouncementPayload(instance: instance, kind: .source, revision: 0, list: list)
        return try call { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                // One attach at a time, so that the count and the insert agree across instances; then the list's
                // own lock, which its writes hold while they check the view (always in this order).
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.viewAttachLock))", logger: logger)
                try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(list), 0))", logger: logger)
                var generation: Int?
                for try await value in try await connection.query(
                    "SELECT generation FROM list_view WHERE list_id = \(list) FOR UPDATE", logger: logger
                ).decode(Int.self) {
                    generation = value
                }
                if generation == nil {
                    var count = 0
                    for try await value in try await connection.query("SELECT count(*)::bigint FROM list_view", logger: logger).decode(Int.self) {
                        count = value
                    }
                    guard count < maximumViews else {
                        throw StoreError.limitReached("the service holds its maximum of \(maximumViews) views")
                    }
                }
                let view = StoredView(list: list, base: base, definition: definition, generation: (generation ?? 0) + 1, baseStep: -1)
                try await connection.query(
                    """
                    INSERT INTO list_view (list_id, base_id, definition, generation, base_step)
                    VALUES (\(list), \(base), \(definition), \(view.generation), \(view.baseStep))
                    ON CONFLICT (list_id) DO UPDATE SET base_id = excluded.base_id, definition = excluded.definition,
                        generation = excluded.generation, base_step = excluded.base_step
                    """, logger: logger)
                try await Self.announce(announcement, on: connection, logger)
                return (generation == nil, view)
            }
        }
    }

    /// The advisory lock that serializes attaches of views (so the count of views holds across instances).
    static let viewAttachLock: Int64 = 0x4C69_7374_5669_6577

    public func detachView(_ list: String) throws(StoreError) -> Bool {
        let announcement = AnnouncementPayload(instance: instance, kind: .source, revision: 0, list: list).text
        return try call { [client, logger] in
            // The row lock makes it wait for a write of the view that checked the row. Announced in the same
            // statement, only when a view was detached.
            for try await _ in try await client.query(
                """
                WITH detached AS (DELETE FROM list_view WHERE list_id = \(list) RETURNING list_id)
                SELECT pg_notify(\(PostgresSchema.channel), \(announcement)) FROM detached
                """, logger: logger)
            {
                return true
            }
            return false
        }
    }

    public func advanceView(list: String, step: ViewStep, atRevision: Int?) throws(StoreError) -> Bool {
        try call { [client, logger] in
            try await ViewFunctions.advance(list: list, step: step, atRevision: atRevision, client: client, logger: logger)
        }
    }

    public func advanceViews(_ advances: [ViewAdvance]) throws(StoreError) -> [Bool] {
        guard advances.count > 1 else {
            return try advances.map { (advance) throws(StoreError) in
                try advanceView(list: advance.list, step: advance.step, atRevision: advance.atRevision)
            }
        }
        return try call { [client, logger] in
            try await ViewFunctions.advance(advances, client: client, logger: logger)
        }
    }
}
