import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Every contract test runs on PostgreSQL too when the test database is there (``StoreKind/available``). Without
/// it the SQLite half still runs, and this suite is skipped in the words `scripts/test.sh` fails a run on.
@Suite(.needsTestDatabase) struct PostgreSQLHalfTests {
    @Test func theContractRunsOnTheSharedTestDatabase() async throws {
        #expect(StoreKind.available == [.sqlite, .postgres])
        try await StoreKind.postgres.withStore { store in
            #expect(store.isShared)
            #expect(store.retention == 1000)
        }
    }
}
