import Dispatch
import ListDeltaStorage
import Testing
@testable import ListDeltaSQLite

@Suite struct ConcurrencyTests {
    @Test func concurrentWritersRetryOnConflictAndNeverLoseRevisions() throws {
        try withStore(retention: 10) { store, _ in
            _ = try store.append(.create("a"))
            let writers = 4
            let appendsPerWriter = 15
            DispatchQueue.concurrentPerform(iterations: writers + 1) { index in
                if index == writers {
                    // A reader: every served chain it sees starts at a snapshot and is contiguous.
                    for _ in 0..<50 {
                        guard let head = try? store.head("a"),
                            let chain = try? store.chain("a", upTo: head.revision),
                            let first = chain.first
                        else { continue }
                        #expect(first.snapshot != nil)
                        #expect(chain.map(\.revision) == Array(first.revision...head.revision))
                    }
                    return
                }
                var done = 0
                while done < appendsPerWriter {
                    do {
                        let current = try #require(try store.head("a")).revision
                        _ = try store.append(.update("a", expected: current, checkpoint: current % 4 == 0))
                        done += 1
                    } catch StoreError.conflict {
                        continue
                    } catch {
                        Issue.record(error)
                        return
                    }
                }
            }
            let head = try #require(try store.head("a"))
            #expect(head.revision == 1 + writers * appendsPerWriter)
            #expect(head.oldestRevision == head.revision - 9)
            #expect(try store.chain("a", upTo: head.oldestRevision)?.first?.snapshot != nil)
        }
    }
}
