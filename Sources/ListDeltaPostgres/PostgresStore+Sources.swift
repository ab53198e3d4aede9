public import ListDeltaStorage
import Logging
import PostgresNIO

/// Sources in PostgreSQL, shared by every instance. Leases compare against the database's clock (never an
/// instance's), and a claim skips rows another instance is claiming at the same moment (`FOR UPDATE SKIP LOCKED`),
/// so each due source goes to exactly one instance.
extension PostgresStore: SourceStore {
    private static let sourceColumns = "list_id, settings, state, generation, next_fetch_at_ms, is_failing"
    /// The database's clock in milliseconds since 1970.
    private static let databaseNow = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    private static func decodeSource(_ row: PostgresRow) throws -> StoredSource {
        let (list, settings, state, generation, next, failing) = try row.decode((String, String, String, Int, Int64, Bool).self)
        return StoredSource(list: list, settings: settings, state: state, generation: generation, nextFetchAtMilliseconds: next, isFailing: failing)
    }

    public func source(_ list: String) throws(StoreError) -> StoredSource? {
        try call { [client, logger] in
            for try await row in try await client.query(
                "SELECT \(unescaped: Self.sourceColumns) FROM list_source WHERE list_id = \(list)", logger: logger)
            {
                return try Self.decodeSource(row)
            }
            return nil
        }
    }

    public func attachSource(
        list: String, settings: String, state: String, owner: String, nowMilliseconds: Int64, leaseMilliseconds: Int64, maximumSources: Int
    ) throws(StoreError) -> (created: Bool, source: StoredSource) {
        let announcement = AnnouncementPayload(instance: instance, kind: .source, revision: 0, list: list)
        return try call { [client, logger] in
            try await client.withTransaction(logger: logger) { connection in
                // One attach at a time, so that the count and the insert agree across instances.
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.sourceAttachLock))", logger: logger)
                var generation: Int?
                for try await value in try await connection.query(
                    "SELECT generation FROM list_source WHERE list_id = \(list) FOR UPDATE", logger: logger
                ).decode(Int.self) {
                    generation = value
                }
                if generation == nil {
                    var count = 0
                    for try await value in try await connection.query("SELECT count(*)::bigint FROM list_source", logger: logger).decode(Int.self) {
                        count = value
                    }
                    guard count < maximumSources else {
                        throw StoreError.limitReached("the service holds its maximum of \(maximumSources) sources")
                    }
                }
                let next = (generation ?? 0) + 1
                try await connection.query(
                    """
                    INSERT INTO list_source (list_id, settings, state, generation, next_fetch_at_ms, is_failing, lease_owner, lease_until_ms)
                    VALUES (\(list), \(settings), \(state), \(next), \(nowMilliseconds), false, \(owner), \(unescaped: Self.databaseNow) + \(leaseMilliseconds))
                    ON CONFLICT (list_id) DO UPDATE SET settings = excluded.settings, state = excluded.state,
                        generation = excluded.generation, next_fetch_at_ms = excluded.next_fetch_at_ms, is_failing = false,
                        lease_owner = excluded.lease_owner, lease_until_ms = excluded.lease_until_ms
                    """, logger: logger)
                // The other instances stop taking direct writes of the list (see `source(_:)`'s callers).
                try await Self.announce(announcement, on: connection, logger)
                return (
                    generation == nil,
                    StoredSource(list: list, settings: settings, state: state, generation: next, nextFetchAtMilliseconds: nowMilliseconds, isFailing: false)
                )
            }
        }
    }

    /// The advisory lock that serializes attaches (so the count of sources holds across instances).
    static let sourceAttachLock: Int64 = 0x4C69_7374_5372_6365

    public func detachSource(_ list: String) throws(StoreError) -> Bool {
        let announcement = AnnouncementPayload(instance: instance, kind: .source, revision: 0, list: list).text
        return try call { [client, logger] in
            // Announced in the same statement, only when a source was detached.
            for try await _ in try await client.query(
                """
                WITH detached AS (DELETE FROM list_source WHERE list_id = \(list) RETURNING list_id)
                SELECT pg_notify(\(PostgresSchema.channel), \(announcement)) FROM detached
                """, logger: logger)
            {
                return true
            }
            return false
        }
    }

    public func claimDueSources(owner: String, nowMilliseconds: Int64, leaseMilliseconds: Int64, limit: Int) throws(StoreError) -> [StoredSource] {
        guard limit > 0 else { return [] }
        return try call { [client, logger] in
            var claimed: [StoredSource] = []
            for try await row in try await client.query(
                """
                UPDATE list_source SET lease_owner = \(owner), lease_until_ms = \(unescaped: Self.databaseNow) + \(leaseMilliseconds)
                WHERE list_id IN (
                    SELECT list_id FROM list_source
                    WHERE next_fetch_at_ms <= \(nowMilliseconds)
                    AND (lease_owner IS NULL OR lease_until_ms < \(unescaped: Self.databaseNow))
                    ORDER BY next_fetch_at_ms LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: Self.sourceColumns)
                """, logger: logger)
            {
                claimed.append(try Self.decodeSource(row))
            }
            return claimed.sorted { $0.nextFetchAtMilliseconds < $1.nextFetchAtMilliseconds }
        }
    }

    public func finishSourceFetch(
        list: String, generation: Int, owner: String, state: String, isFailing: Bool, nextFetchAtMilliseconds: Int64
    ) throws(StoreError) -> Bool {
        try call { [client, logger] in
            for try await _ in try await client.query(
                """
                UPDATE list_source SET state = \(state), is_failing = \(isFailing), next_fetch_at_ms = \(nextFetchAtMilliseconds),
                    lease_owner = NULL, lease_until_ms = NULL
                WHERE list_id = \(list) AND generation = \(generation) AND lease_owner = \(owner)
                RETURNING list_id
                """, logger: logger)
            {
                return true
            }
            return false
        }
    }

    public func holdsSourceLease(list: String, generation: Int, owner: String) throws(StoreError) -> Bool {
        try call { [client, logger] in
            for try await _ in try await client.query(
                "SELECT 1 FROM list_source WHERE list_id = \(list) AND generation = \(generation) AND lease_owner = \(owner)", logger: logger)
            {
                return true
            }
            return false
        }
    }

    public func sourceCounts() throws(StoreError) -> SourceCounts {
        try call { [client, logger] in
            for try await (attached, failing) in try await client.query(
                "SELECT count(*)::bigint, count(*) FILTER (WHERE is_failing)::bigint FROM list_source", logger: logger
            ).decode((Int, Int).self) {
                return SourceCounts(attached: attached, failing: failing)
            }
            return SourceCounts(attached: 0, failing: 0)
        }
    }
}
