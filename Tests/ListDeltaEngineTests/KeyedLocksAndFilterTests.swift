import Dispatch
import Foundation
import Synchronization
import Testing
@testable import ListDeltaEngine

@Suite struct KeyedLocksTests {
    @Test func serialisesOneKeyAndForgetsIdleKeys() {
        let locks = KeyedLocks<String>()
        let inside = Atomic<Int>(0)
        let overlap = Atomic<Bool>(false)
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            locks.withLock(index % 2 == 0 ? "a" : "b") {
                if index % 2 == 0 {
                    if inside.add(1, ordering: .relaxed).newValue > 1 { overlap.store(true, ordering: .relaxed) }
                    usleep(200)
                    inside.subtract(1, ordering: .relaxed)
                }
            }
        }
        let overlapped = overlap.load(ordering: .relaxed)
        #expect(!overlapped)
        #expect(locks.activeCount == 0)
    }
}

@Suite struct ListIDFilterTests {
    @Test func neverForgetsAndRarelyGuesses() {
        let filter = ListIDFilter(capacity: 10_000)
        for index in 0..<10_000 { filter.insert("list-\(index)") }
        #expect((0..<10_000).allSatisfy { filter.mightContain("list-\($0)") })
        let falsePositives = (0..<10_000).filter { filter.mightContain("other-\($0)") }.count
        #expect(falsePositives < 300)  // about 1% expected at capacity
    }
}

