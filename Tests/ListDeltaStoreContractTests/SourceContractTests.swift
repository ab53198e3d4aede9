import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Sources: attach and detach, the bound on them and their counts, and leases that give each due source to one
/// claimer until it finishes.
///
/// Every test takes its turn on the sources (``exclusivelyOnSources(_:)``): a claim takes every due source of the
/// database, and the bound counts them all. Times are a clock of the test's own (`now`), which due dates follow;
/// a lease runs on the store's clock (the database's on PostgreSQL), so none lapses within a test.
@Suite struct SourceContractTests {
    private let now: Int64 = 1_000_000
    private let lease: Int64 = 600_000

    @Test(arguments: StoreKind.available)
    func attachClaimFinishAndDetach(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            try exclusivelyOnSources {
                let list = uniqueID("src")
                let attached = try store.attachSource(
                    list: list, settings: "{\"url\":\"u\"}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: lease,
                    maximumSources: .max)
                #expect(attached.created)
                #expect(attached.source == StoredSource(
                    list: list, settings: "{\"url\":\"u\"}", state: "{}", generation: 1, nextFetchAtMilliseconds: now, isFailing: false))
                #expect(try store.source(list) == attached.source)
                // Leased to the attacher: no one else may claim it, though it is due.
                #expect(try store.claimDueSources(owner: "b", nowMilliseconds: now + 1, leaseMilliseconds: lease, limit: .max).allSatisfy { $0.list != list })
                #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "b", state: "{\"x\":1}", isFailing: false, nextFetchAtMilliseconds: now) == false)
                #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "a", state: "{\"x\":1}", isFailing: true, nextFetchAtMilliseconds: now + 10))
                #expect(try store.source(list) == StoredSource(
                    list: list, settings: "{\"url\":\"u\"}", state: "{\"x\":1}", generation: 1, nextFetchAtMilliseconds: now + 10, isFailing: true))
                // The lease was given back: finishing again records nothing.
                #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "a", state: "{}", isFailing: false, nextFetchAtMilliseconds: now) == false)
                // Not due yet, then due: claimed once.
                #expect(try store.claimDueSources(owner: "b", nowMilliseconds: now + 5, leaseMilliseconds: lease, limit: .max).allSatisfy { $0.list != list })
                let claimed = try store.claimDueSources(owner: "b", nowMilliseconds: now + 10, leaseMilliseconds: lease, limit: .max).filter { $0.list == list }
                #expect(claimed.count == 1)
                #expect(claimed.first == (try store.source(list)))
                #expect(try store.claimDueSources(owner: "c", nowMilliseconds: now + 11, leaseMilliseconds: lease, limit: .max).allSatisfy { $0.list != list })
                // A change of settings raises the generation, due at once and leased to the changer: the older
                // fetch records nothing.
                let changed = try store.attachSource(
                    list: list, settings: "{\"url\":\"v\"}", state: "{}", owner: "c", nowMilliseconds: now + 12, leaseMilliseconds: lease,
                    maximumSources: .max)
                #expect(!changed.created)
                #expect(changed.source == StoredSource(
                    list: list, settings: "{\"url\":\"v\"}", state: "{}", generation: 2, nextFetchAtMilliseconds: now + 12, isFailing: false))
                #expect(try store.finishSourceFetch(list: list, generation: 1, owner: "b", state: "{}", isFailing: false, nextFetchAtMilliseconds: now) == false)
                #expect(try store.source(list) == changed.source)
                #expect(try store.detachSource(list))
                #expect(try store.detachSource(list) == false)
                #expect(try store.source(list) == nil)
                #expect(try store.finishSourceFetch(list: list, generation: 2, owner: "c", state: "{}", isFailing: false, nextFetchAtMilliseconds: now) == false)
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func claimsTakeTheMostOverdueFirstUpToTheLimit(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            try exclusivelyOnSources {
                let prefix = uniqueID("due")
                let lists = (0..<4).map { "\(prefix)-\($0)" }
                // Due at now - 1, now - 2, now - 3, now - 4.
                for (index, list) in lists.enumerated() {
                    _ = try store.attachSource(
                        list: list, settings: "{}", state: "{}", owner: "setup", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: .max)
                    #expect(try store.finishSourceFetch(
                        list: list, generation: 1, owner: "setup", state: "{}", isFailing: false, nextFetchAtMilliseconds: now - 1 - Int64(index)))
                }
                let first = try store.claimDueSources(owner: "a", nowMilliseconds: now, leaseMilliseconds: lease, limit: 2)
                #expect(first.map(\.list) == [lists[3], lists[2]])
                let rest = try store.claimDueSources(owner: "b", nowMilliseconds: now, leaseMilliseconds: lease, limit: .max).filter { $0.list.hasPrefix(prefix) }
                #expect(rest.map(\.list) == [lists[1], lists[0]])
                #expect(try store.claimDueSources(owner: "c", nowMilliseconds: now, leaseMilliseconds: lease, limit: 0).isEmpty)
                for list in lists { _ = try store.detachSource(list) }
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func whoHoldsTheLease(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            try exclusivelyOnSources {
                let list = uniqueID("lease")
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "a") == false, "no source")
                _ = try store.attachSource(
                    list: list, settings: "{}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: .max)
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "a"))
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "b") == false)
                #expect(try store.holdsSourceLease(list: list, generation: 2, owner: "a") == false)
                // Given back by the fetch's end; taken by a claim.
                _ = try store.finishSourceFetch(list: list, generation: 1, owner: "a", state: "{}", isFailing: false, nextFetchAtMilliseconds: now)
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "a") == false)
                #expect(try store.claimDueSources(owner: "b", nowMilliseconds: now, leaseMilliseconds: lease, limit: .max).contains { $0.list == list })
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "b"))
                // A change takes it from the claimer (the changer fetches at once).
                _ = try store.attachSource(
                    list: list, settings: "{\"v\":2}", state: "{}", owner: "c", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: .max)
                #expect(try store.holdsSourceLease(list: list, generation: 1, owner: "b") == false)
                #expect(try store.holdsSourceLease(list: list, generation: 2, owner: "c"))
                _ = try store.detachSource(list)
                #expect(try store.holdsSourceLease(list: list, generation: 2, owner: "c") == false)
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func sourcesAreCountedAndBounded(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            try exclusivelyOnSources {
                // Other tests' sources may be left in a shared database: everything counts from what is there.
                let before = try store.sourceCounts()
                let (first, second) = (uniqueID("bound"), uniqueID("bound"))
                let bound = before.attached + 1
                _ = try store.attachSource(
                    list: first, settings: "{}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: bound)
                #expect(throws: StoreError.limitReached("the service holds its maximum of \(bound) sources")) {
                    try store.attachSource(
                        list: second, settings: "{}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: bound)
                }
                #expect(try store.source(second) == nil)
                // Changing one that is attached is no new source.
                #expect(try store.attachSource(
                    list: first, settings: "{\"v\":2}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: bound
                ).source.generation == 2)
                #expect(try store.sourceCounts() == SourceCounts(attached: before.attached + 1, failing: before.failing))
                // A failed fetch counts as failing until one succeeds.
                #expect(try store.finishSourceFetch(list: first, generation: 2, owner: "a", state: "{}", isFailing: true, nextFetchAtMilliseconds: now))
                #expect(try store.sourceCounts() == SourceCounts(attached: before.attached + 1, failing: before.failing + 1))
                _ = try store.detachSource(first)
                #expect(try store.sourceCounts() == before)
                #expect(try store.attachSource(
                    list: second, settings: "{}", state: "{}", owner: "a", nowMilliseconds: now, leaseMilliseconds: lease, maximumSources: bound
                ).created)
                _ = try store.detachSource(second)
            }
        }
    }
}
