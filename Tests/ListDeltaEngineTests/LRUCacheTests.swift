import ListDeltaCore
import Testing

@testable import ListDeltaEngine

@Suite struct LRUCacheTests {
    @Test func pastItsBudgetTheLeastRecentlyUsedEntriesGoFirst() {
        let cache = LRUCache<String, Int>(budget: 10)
        cache.set(1, for: "a", cost: 4)
        cache.set(2, for: "b", cost: 4)
        // Reading "a" makes "b" the least recently used.
        #expect(cache.value(for: "a") == 1)
        cache.set(3, for: "c", cost: 4)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1 && cache.value(for: "c") == 3)
        #expect(cache.usage == (count: 2, cost: 8))
        // One large entry pushes out as many as it needs, oldest first.
        cache.set(4, for: "d", cost: 9)
        #expect(cache.usage == (count: 1, cost: 9))
        #expect(cache.value(for: "d") == 4)
    }

    @Test func anEntryLargerThanTheBudgetIsNotKeptAndEvictsNothing() {
        let cache = LRUCache<String, Int>(budget: 10)
        cache.set(1, for: "a", cost: 6)
        cache.set(2, for: "huge", cost: 11)
        #expect(cache.value(for: "huge") == nil)
        #expect(cache.value(for: "a") == 1)
    }

    @Test func replacingUpdatingAndRemovingKeepTheCostExact() {
        let cache = LRUCache<String, Int>(budget: 100)
        cache.set(1, for: "a", cost: 10)
        cache.set(2, for: "a", cost: 30)
        #expect(cache.usage == (count: 1, cost: 30))
        cache.update("a", cost: 5) { ($0 ?? 0) + 1 }
        #expect(cache.value(for: "a") == 3 && cache.usage.cost == 5)
        cache.update("b", cost: 7) { $0 == nil ? 9 : nil }
        #expect(cache.value(for: "b") == 9 && cache.usage == (count: 2, cost: 12))
        cache.update("a", cost: 1) { _ in nil }
        #expect(cache.value(for: "a") == nil && cache.usage == (count: 1, cost: 7))
        cache.set(4, for: "c", cost: 2)
        cache.removeValue(for: "b")
        #expect(cache.usage == (count: 1, cost: 2))
        cache.set(5, for: "d1", cost: 1)
        cache.set(6, for: "d2", cost: 1)
        cache.removeAll { $0.hasPrefix("d") }
        #expect(cache.usage == (count: 1, cost: 2) && cache.value(for: "c") == 4)
    }

    @Test func randomUseMatchesASimpleModelOfRecency() {
        // The model: an array in recency order, oldest first, trimmed from the front past the budget.
        var generator = SplitMix64(seed: 11)
        let budget = 50
        let cache = LRUCache<Int, Int>(budget: budget)
        var model: [(key: Int, value: Int, cost: Int)] = []
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<40, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<4:
                let expected = model.firstIndex { $0.key == key }.map { index in
                    let entry = model.remove(at: index)
                    model.append(entry)
                    return entry.value
                }
                #expect(cache.value(for: key) == expected, "step \(step)")
            case 4..<9:
                let cost = Int.random(in: 1...12, using: &generator)
                cache.set(step, for: key, cost: cost)
                model.removeAll { $0.key == key }
                model.append((key, step, cost))
                while model.reduce(0, { $0 + $1.cost }) > budget { model.removeFirst() }
            default:
                cache.removeValue(for: key)
                model.removeAll { $0.key == key }
            }
            #expect(cache.usage.count == model.count && cache.usage.cost == model.reduce(0) { $0 + $1.cost }, "step \(step)")
        }
    }
}
