import ListDeltaStorage
import PostgresNIO
@testable import ListDeltaPostgres

extension PostgresStore {
    /// How many sessions of the database wait for `list`'s advisory lock, the one every write of the list and a
    /// turn on it take: what a test waits for to know that another instance's call is held up by the lock.
    func sessionsWaiting(forTheLockOf list: String) throws(StoreError) -> Int {
        try call { [client, logger] in
            // A bigint key shows as its high half (classid) and its low half (objid), with objsubid 1.
            let rows = try await client.query(
                """
                SELECT count(*)::bigint FROM pg_locks
                WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
                    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(\(list), 0)
                """, logger: logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }
}
