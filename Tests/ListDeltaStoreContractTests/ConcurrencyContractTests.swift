import ListDeltaCoreTestSupport
import ListDeltaStorage
import ListDeltaStoreTestSupport
import Synchronization
import Testing

/// Concurrent appends to one store: racing writers retry on conflicts and no revision is lost, and a view's writes
/// stay in base order however they race.
@Suite struct ConcurrencyContractTests {
    @Test(arguments: StoreKind.available)
    func concurrentWritersRetryOnConflictAndNeverLoseRevisions(_ kind: StoreKind) async throws {
        try await kind.withStore(retention: 10) { store in
            let a = uniqueID("a")
            _ = try store.append(.create(a))
            let writers = 4
            let appendsPerWriter = 15
            // What the threads saw amiss, recorded here: an expectation on a thread of their own is no test's.
            let problems = Mutex<[String]>([])
            concurrentlyOnOwnThreads(writers + 1) { index in
                if index == writers {
                    // A reader: every served chain it sees starts at a snapshot and is contiguous.
                    for _ in 0..<50 {
                        guard let head = try? store.head(a), let chain = try? store.chain(a, upTo: head.revision), let first = chain.first
                        else { continue }
                        if first.snapshot == nil || chain.map(\.revision) != Array(first.revision...head.revision) {
                            problems.withLock { $0.append("the chain up to \(head.revision): \(chain.map(\.revision))") }
                        }
                    }
                    return
                }
                var done = 0
                while done < appendsPerWriter {
                    do throws(StoreError) {
                        let current = try store.head(a)?.revision ?? 0
                        _ = try store.append(.update(a, expected: current, checkpoint: current % 4 == 0))
                        done += 1
                    } catch .conflict {
                        continue
                    } catch {
                        problems.withLock { $0.append("\(error)") }
                        return
                    }
                }
            }
            #expect(problems.withLock { $0 } == [])
            let head = try #require(try store.head(a))
            #expect(head.revision == 1 + writers * appendsPerWriter)
            #expect(head.oldestRevision == head.revision - 9)
            #expect(try store.chain(a, upTo: head.oldestRevision)?.first?.snapshot != nil)
            #expect(try store.history(a, before: nil, limit: 100)?.revisions.map(\.revision) == Array((head.oldestRevision...head.revision).reversed()))
        }
    }

    /// Writers of one view for steps 1...40 at once, each again after a lost race until it commits or is
    /// superseded: the view ends at step 40 and its revisions are in step order.
    @Test(arguments: StoreKind.available)
    func racingViewWritesKeepBaseOrder(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let v = try createdView(store, atStep: 0)
            let committed = Mutex<[(revision: Int, step: Int)]>([(1, 0)])
            let failures = Mutex<[StoreError]>([])
            concurrentlyOnOwnThreads(40) { index in
                let step = index + 1
                do throws(StoreError) {
                    if let revision = try writeView(store, v, step: step) { committed.withLock { $0.append((revision, step)) } }
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            let steps = committed.withLock { $0 }.sorted { $0.revision < $1.revision }
            #expect(steps.map(\.revision) == Array(1...steps.count))
            #expect(steps.map(\.step) == steps.map(\.step).sorted())
            #expect(try store.view(v)?.baseStep == 40)
            #expect(try store.head(v)?.revision == steps.count)
        }
    }
}
