import Synchronization

/// A thread-safe cache bounded by a total cost (bytes), evicting the least recently used entries.
final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var cost: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var totalCost = 0
        var clock: UInt64 = 0
    }

    private let budget: Int
    private let state = Mutex(State())

    /// A cache holding at most `budget` cost units.
    init(budget: Int) {
        self.budget = budget
    }

    /// The value for `key`, marking it used.
    /// - Complexity: O(1).
    func value(for key: Key) -> Value? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.value
        }
    }

    /// Stores `value`; an entry costing more than the whole budget is not kept.
    /// - Complexity: O(1) amortised; an eviction sorts the entries (O(*e* log *e*)) and frees a tenth of the budget.
    func set(_ value: Value, for key: Key, cost: Int) {
        guard cost <= budget else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries[key] { state.totalCost -= old.cost }
            state.entries[key] = Entry(value: value, cost: cost, lastUse: state.clock)
            state.totalCost += cost
            evictIfOverBudget(&state)
        }
    }

    /// Past the budget, evicts the least recently used entries until a tenth of it is free.
    private func evictIfOverBudget(_ state: inout State) {
        guard state.totalCost > budget else { return }
        let target = budget - budget / 10
        for (key, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
            guard state.totalCost > target else { break }
            state.entries[key] = nil
            state.totalCost -= entry.cost
        }
    }

    /// Replaces the entry for `key` with what `transform` makes of it (`nil`: absent), atomically; `nil` removes
    /// it. A new or replaced entry costs `cost` and is marked used.
    /// - Complexity: O(1) amortised, as ``set(_:for:cost:)``.
    func update(_ key: Key, cost: Int, _ transform: (Value?) -> Value?) {
        guard cost <= budget else { return }
        state.withLock { state in
            let old = state.entries[key]
            guard let value = transform(old?.value) else {
                if let old {
                    state.entries[key] = nil
                    state.totalCost -= old.cost
                }
                return
            }
            state.clock += 1
            state.totalCost += cost - (old?.cost ?? 0)
            state.entries[key] = Entry(value: value, cost: cost, lastUse: state.clock)
            evictIfOverBudget(&state)
        }
    }

    /// Removes the entry for `key`, if any.
    /// - Complexity: O(1).
    func removeValue(for key: Key) {
        state.withLock { state in
            if let entry = state.entries.removeValue(forKey: key) { state.totalCost -= entry.cost }
        }
    }

    /// Removes every entry whose key matches.
    func removeAll(where predicate: (Key) -> Bool) {
        state.withLock { state in
            for (key, entry) in state.entries where predicate(key) {
                state.entries[key] = nil
                state.totalCost -= entry.cost
            }
        }
    }

    /// The number of entries and their total cost.
    var usage: (count: Int, cost: Int) {
        state.withLock { ($0.entries.count, $0.totalCost) }
    }
}
