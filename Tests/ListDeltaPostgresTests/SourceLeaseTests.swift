import Foundation
import ListDeltaPostgres
import ListDeltaSQLite
import ListDeltaStorage
import Synchronization
import Testing

/// What every source store promises: attach and detach, the bound on sources, and leases that give each due
/// source to exactly one claimer until it finishes or its lease lapses.
enum SourceStoreContract {
    static func attachClaimFinishDetach(_ store: any SourceStore, now: Int64) throws {
        let list = uniqueID("src")
        let attached = try store.attachSource(
            list: list, settings: "{\"url\":\"u\"}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: 60_000, maximumSources: 1_000_000)
        #expect(attached.created)
        #expect(attached.source.generation == 1)
        // Leased to the attacher: no one else may claim it, though it is due.
        #expect(try store.claimDueSources(owner: "b", nowMilliseconds: now + 1, leaseMilliseconds: 60_000, limit: 100).allSatisfy { $0.list != list })
        #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "b", state: "{\"x\":1}", isFailing: false, nextFetchAtMilliseconds: now) == false)
        #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "a", state: "{\"x\":1}", isFailing: true, nextFetchAtMilliseconds: now + 10))
        #expect(try store.source(list)?.state == "{\"x\":1}")
        #expect(try store.source(list)?.isFailing == true)
        // Not due yet, then due: claimed once.
        #expect(try store.claimDueSources(owner: "b", nowMilliseconds: now + 5, leaseMilliseconds: 60_000, limit: 100_000).allSatisfy { $0.list != list })
        let claimed = try store.claimDueSources(owner: "b", nowMilliseconds: now + 10, leaseMilliseconds: 60_000, limit: 100_000).filter { $0.list == list }
        #expect(claimed.count == 1)
        #expect(try store.claimDueSources(owner: "c", nowMilliseconds: now + 11, leaseMilliseconds: 60_000, limit: 100_000).allSatisfy { $0.list != list })
        // A change of settings raises the generation: the older fetch records nothing.
        let changed = try store.attachSource(
            list: list, settings: "{\"url\":\"v\"}", state: "{}", owner: "c", nowMilliseconds: now + 12, leaseMilliseconds: 60_000, maximumSources: 1_000_000)
        #expect(!changed.created)
        #expect(changed.source.generation == 2)
        #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "b", state: "{}", isFailing: false, nextFetchAtMilliseconds: now) == false)
        #expect(try store.detachSource(list))
        #expect(try store.detachSource(list) == false)
        #expect(try store.source(list) == nil)
    }

    static func theNumberOfSourcesIsBounded(_ store: any SourceStore, now: Int64) throws {
        let attached = try store.sourceCounts().attached
        let first = uniqueID("bound")
        _ = try store.attachSource(list: first, settings: "{}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: 1, maximumSources: attached + 1)
        #expect(throws: StoreError.self) {
            try store.attachSource(list: uniqueID("bound"), settings: "{}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: 1, maximumSources: attached + 1)
        }
        // Changing one that is attached is no new source.
        _ = try store.attachSource(list: first, settings: "{\"v\":2}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: 1, maximumSources: attached + 1)
        _ = try store.detachSource(first)
    }
}

@Suite struct SQLiteSourceStoreTests {
    private func store() throws -> SQLiteStore {
        try SQLiteStore(configuration: SQLiteStoreConfiguration(directory: NSTemporaryDirectory() + "sources-\(UUID().uuidString)"))
    }

    @Test func attachClaimFinishDetach() throws {
        try SourceStoreContract.attachClaimFinishDetach(try store(), now: 1_000_000)
    }

    @Test func theNumberOfSourcesIsBounded() throws {
        try SourceStoreContract.theNumberOfSourcesIsBounded(try store(), now: 1_000_000)
    }

    @Test func sourcesSurviveReopening() throws {
        let directory = NSTemporaryDirectory() + "sources-\(UUID().uuidString)"
        _ = try SQLiteStore(configuration: SQLiteStoreConfiguration(directory: directory)).attachSource(
            list: "kept", settings: "{\"url\":\"u\"}", state: "{}", owner: "a", nowMilliseconds: 5, leaseMilliseconds: 1, maximumSources: 10)
        let reopened = try SQLiteStore(configuration: SQLiteStoreConfiguration(directory: directory))
        #expect(try reopened.source("kept")?.settings == "{\"url\":\"u\"}")
        #expect(try reopened.sourceCounts() == SourceCounts(attached: 1, failing: 0))
    }
}

// Serialized: a claim takes every due source of the database, so these tests must not claim each other's.
@Suite(.serialized, .enabled(if: hasTestDatabase, "needs LISTDELTA_TEST_POSTGRES_URL (scripts/test.sh starts a server)"))
struct PostgresSourceLeaseTests {
    @Test func attachClaimFinishDetach() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        try await onOwnThread { try SourceStoreContract.attachClaimFinishDetach(store, now: Int64(Date().timeIntervalSince1970 * 1_000)) }
    }

    @Test func theNumberOfSourcesIsBounded() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        try await onOwnThread { try SourceStoreContract.theNumberOfSourcesIsBounded(store, now: Int64(Date().timeIntervalSince1970 * 1_000)) }
    }

    /// Two instances (two stores, each with its own connections) claiming the same due sources as fast as they
    /// can, from several threads each: every source goes to exactly one of them.
    @Test func racingInstancesClaimEachSourceOnce() async throws {
        let instances = [try openPostgresStore(), try openPostgresStore()]
        defer { instances.forEach { $0.close() } }
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        let prefix = uniqueID("race")
        let lists = (0..<60).map { "\(prefix)-\($0)" }
        try await onOwnThread {
            for list in lists {
                _ = try instances[0].attachSource(list: list, settings: "{}", state: "{}", owner: "setup", nowMilliseconds: now, leaseMilliseconds: 60_000, maximumSources: 1_000_000)
                #expect(try instances[0].finishSourceFetch(list: list, generation: 1, owner: "setup", state: "{}", isFailing: false, nextFetchAtMilliseconds: now - 1))
            }
        }
        let claims = ClaimLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<4 {
                let store = instances[index % 2]
                let owner = "instance-\(index % 2)-thread-\(index / 2)"
                group.addTask {
                    try await onOwnThread {
                        for _ in 0..<20 {
                            for source in try store.claimDueSources(owner: owner, nowMilliseconds: now, leaseMilliseconds: 60_000, limit: 4) where source.list.hasPrefix(prefix) {
                                claims.add(source.list, owner)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let claimed = claims.owners.withLock { $0 }
        #expect(claimed.count == lists.count, "every due source was claimed")
        #expect(claimed.values.allSatisfy { $0.count == 1 }, "none twice: \(claimed.filter { $0.value.count > 1 })")
        try await onOwnThread { for list in lists { _ = try instances[0].detachSource(list) } }
    }

    /// A lease whose holder died lapses, and another instance takes the source over.
    @Test func aLapsedLeaseIsTakenOver() async throws {
        let store = try openPostgresStore()
        defer { store.close() }
        let list = uniqueID("lapse")
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        try await onOwnThread {
            _ = try store.attachSource(list: list, settings: "{}", state: "{}", owner: "dead", nowMilliseconds: now - 5_000, leaseMilliseconds: 300, maximumSources: 1_000_000)
            #expect(try store.claimDueSources(owner: "alive", nowMilliseconds: now, leaseMilliseconds: 60_000, limit: 1_000).allSatisfy { $0.list != list })
            Thread.sleep(forTimeInterval: 0.5)
            #expect(try store.claimDueSources(owner: "alive", nowMilliseconds: now, leaseMilliseconds: 60_000, limit: 1_000).contains { $0.list == list })
            #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "dead", state: "{}", isFailing: false, nextFetchAtMilliseconds: now) == false)
            _ = try store.detachSource(list)
        }
    }
}

/// Who claimed which source.
final class ClaimLog: Sendable {
    let owners = Mutex<[String: [String]]>([:])
    func add(_ list: String, _ owner: String) { owners.withLock { $0[list, default: []].append(owner) } }
}
