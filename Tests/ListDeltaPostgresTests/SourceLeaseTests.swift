import Foundation
import ListDeltaCoreTestSupport
import ListDeltaPostgres
import ListDeltaStorage
import ListDeltaStoreTestSupport
import Synchronization
import Testing

/// Source leases across instances of one database: what one store alone cannot show (the contract suite,
/// ListDeltaStoreContractTests, holds each store to the rest). Each test takes its turn on the sources
/// (``exclusivelyOnSources(_:)``): a claim takes every due source of the database.
@Suite(.needsTestDatabase) struct PostgresSourceLeaseTests {
    /// Two instances (two stores, each with its own connections) claiming the same due sources as fast as they
    /// can, from two threads each: every source goes to exactly one of them.
    @Test func racingInstancesClaimEachSourceOnce() async throws {
        try await onOwnThread {
            let instances = [try openPostgresStore(), try openPostgresStore()]
            defer { instances.forEach { $0.close() } }
            try exclusivelyOnSources {
                let now = Int64(Date().timeIntervalSince1970 * 1_000)
                let prefix = uniqueID("race")
                let lists = (0..<60).map { "\(prefix)-\($0)" }
                for list in lists {
                    _ = try instances[0].attachSource(
                        list: list, settings: "{}", state: "{}", owner: "setup", nowMilliseconds: now, leaseMilliseconds: 60_000,
                        maximumSources: .max)
                    #expect(try instances[0].finishSourceFetch(
                        list: list, generation: 1, owner: "setup", state: "{}", isFailing: false, nextFetchAtMilliseconds: now - 1))
                }
                let claims = ClaimLog()
                let errors = Mutex<[StoreError]>([])
                concurrentlyOnOwnThreads(4) { index in
                    let store = instances[index % 2]
                    let owner = "instance-\(index % 2)-thread-\(index / 2)"
                    for _ in 0..<20 {
                        do throws(StoreError) {
                            for source in try store.claimDueSources(owner: owner, nowMilliseconds: now, leaseMilliseconds: 60_000, limit: 4)
                            where source.list.hasPrefix(prefix) {
                                claims.add(source.list, owner)
                            }
                        } catch {
                            errors.withLock { $0.append(error) }
                        }
                    }
                }
                #expect(errors.withLock { $0 } == [])
                let claimed = claims.owners.withLock { $0 }
                #expect(claimed.count == lists.count, "every due source was claimed")
                #expect(claimed.values.allSatisfy { $0.count == 1 }, "none twice: \(claimed.filter { $0.value.count > 1 })")
                for list in lists { _ = try instances[0].detachSource(list) }
            }
        }
    }

    /// A lease whose holder died lapses on the database's clock, whatever time the claimers say it is, and another
    /// instance takes the source over. (That a lease holds until then is the contract suite's.)
    @Test func aLapsedLeaseIsTakenOver() async throws {
        try await onOwnThread {
            let store = try openPostgresStore()
            defer { store.close() }
            try exclusivelyOnSources {
                let list = uniqueID("lapse")
                let now = Int64(Date().timeIntervalSince1970 * 1_000)
                _ = try store.attachSource(
                    list: list, settings: "{}", state: "{}", owner: "dead", nowMilliseconds: now - 5_000, leaseMilliseconds: 1, maximumSources: .max)
                // Claimed once the database's clock passes the lease, though the claimer's `now` stays where it was.
                #expect(eventually(10) {
                    (try? store.claimDueSources(owner: "alive", nowMilliseconds: now, leaseMilliseconds: 60_000, limit: 1_000).contains { $0.list == list }) == true
                })
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "alive"))
                #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "dead", state: "{}", isFailing: false, nextFetchAtMilliseconds: now) == false)
                _ = try store.detachSource(list)
            }
        }
    }
}

/// Who claimed which source.
final class ClaimLog: Sendable {
    let owners = Mutex<[String: [String]]>([:])
    func add(_ list: String, _ owner: String) { owners.withLock { $0[list, default: []].append(owner) } }
}
