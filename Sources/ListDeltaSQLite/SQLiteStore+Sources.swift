import GRDB
public import ListDeltaStorage

/// Sources in SQLite. One process serves a data directory, so the lease matters only within it; it is kept all the
/// same, so that the service's scheduling is the same on every store.
extension SQLiteStore: SourceStore {
    private static let sourceColumns = "list_id, settings, state, generation, next_fetch_at_ms, is_failing"

    private static func decodeSource(_ row: Row) -> StoredSource {
        StoredSource(
            list: row[0], settings: row[1], state: row[2], generation: row[3], nextFetchAtMilliseconds: row[4], isFailing: row[5])
    }

    public func source(_ list: String) throws(StoreError) -> StoredSource? {
        try StoreError.catching {
            try pool.read { db in
                try Row.fetchOne(db, sql: "SELECT \(Self.sourceColumns) FROM list_source WHERE list_id = ?", arguments: [list])
                    .map(Self.decodeSource)
            }
        }
    }

    public func attachSource(
        list: String, settings: String, state: String, owner: String, nowMilliseconds: Int64, leaseMilliseconds: Int64, maximumSources: Int
    ) throws(StoreError) -> (created: Bool, source: StoredSource) {
        try StoreError.catching {
            try pool.write { db in
                let generation = try Int.fetchOne(db, sql: "SELECT generation FROM list_source WHERE list_id = ?", arguments: [list])
                if generation == nil {
                    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM list_source") ?? 0
                    guard count < maximumSources else {
                        throw StoreError.limitReached("the service holds its maximum of \(maximumSources) sources")
                    }
                }
                let source = StoredSource(
                    list: list, settings: settings, state: state, generation: (generation ?? 0) + 1, nextFetchAtMilliseconds: nowMilliseconds,
                    isFailing: false)
                try db.execute(
                    sql: """
                        INSERT INTO list_source (list_id, settings, state, generation, next_fetch_at_ms, is_failing, lease_owner, lease_until_ms)
                        VALUES (?, ?, ?, ?, ?, 0, ?, ?)
                        ON CONFLICT (list_id) DO UPDATE SET settings = excluded.settings, state = excluded.state,
                            generation = excluded.generation, next_fetch_at_ms = excluded.next_fetch_at_ms, is_failing = 0,
                            lease_owner = excluded.lease_owner, lease_until_ms = excluded.lease_until_ms
                        """,
                    arguments: [list, settings, state, source.generation, nowMilliseconds, owner, nowMilliseconds + leaseMilliseconds])
                return (generation == nil, source)
            }
        }
    }

    public func detachSource(_ list: String) throws(StoreError) -> Bool {
        try StoreError.catching {
            try pool.write { db in
                try db.execute(sql: "DELETE FROM list_source WHERE list_id = ?", arguments: [list])
                return db.changesCount > 0
            }
        }
    }

    public func claimDueSources(owner: String, nowMilliseconds: Int64, leaseMilliseconds: Int64, limit: Int) throws(StoreError) -> [StoredSource] {
        guard limit > 0 else { return [] }
        // Asked every scheduler tick: a read answers the usual "nothing due" without taking the single writer's lock.
        let anyDue = try StoreError.catching {
            try pool.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM list_source WHERE next_fetch_at_ms <= ? AND (lease_owner IS NULL OR lease_until_ms < ?) LIMIT 1",
                    arguments: [nowMilliseconds, nowMilliseconds]) ?? false
            }
        }
        guard anyDue else { return [] }
        return try StoreError.catching {
            try pool.write { db in
                let due = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(Self.sourceColumns) FROM list_source
                        WHERE next_fetch_at_ms <= ? AND (lease_owner IS NULL OR lease_until_ms < ?)
                        ORDER BY next_fetch_at_ms LIMIT ?
                        """,
                    arguments: [nowMilliseconds, nowMilliseconds, limit]
                ).map(Self.decodeSource)
                for source in due {
                    try db.execute(
                        sql: "UPDATE list_source SET lease_owner = ?, lease_until_ms = ? WHERE list_id = ?",
                        arguments: [owner, nowMilliseconds + leaseMilliseconds, source.list])
                }
                return due
            }
        }
    }

    public func finishSourceFetch(
        list: String, generation: Int, owner: String, state: String, isFailing: Bool, nextFetchAtMilliseconds: Int64
    ) throws(StoreError) -> Bool {
        try StoreError.catching {
            try pool.write { db in
                try db.execute(
                    sql: """
                        UPDATE list_source SET state = ?, is_failing = ?, next_fetch_at_ms = ?, lease_owner = NULL, lease_until_ms = NULL
                        WHERE list_id = ? AND generation = ? AND lease_owner = ?
                        """,
                    arguments: [state, isFailing, nextFetchAtMilliseconds, list, generation, owner])
                return db.changesCount > 0
            }
        }
    }

    public func holdsSourceLease(list: String, generation: Int, owner: String) throws(StoreError) -> Bool {
        try StoreError.catching {
            try pool.read { db in
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM list_source WHERE list_id = ? AND generation = ? AND lease_owner = ?",
                    arguments: [list, generation, owner]) ?? false
            }
        }
    }

    public func sourceCounts() throws(StoreError) -> SourceCounts {
        try StoreError.catching {
            try pool.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(is_failing), 0) FROM list_source")
                return SourceCounts(attached: row?[0] ?? 0, failing: row?[1] ?? 0)
            }
        }
    }
}
