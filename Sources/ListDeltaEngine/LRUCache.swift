import Synchronization

/// A thread-safe cache bounded by a total cost (bytes), evicting the least recently used entries.
///
/// The entries form a doubly linked list in recency order, kept in one array of nodes (freed slots are reused),
/// beside a dictionary from key to slot: a read, a write and each eviction are O(1).
public final class LRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node {
        var key: Key
        var value: Value?
        var cost: Int
        /// Slots of the more and the less recently used neighbours (`-1`: none).
        var newer: Int
        var older: Int
    }

    private struct State {
        var slots: [Key: Int] = [:]
        var nodes: [Node] = []
        var free: [Int] = []
        var newest = -1
        var oldest = -1
        var totalCost = 0

        mutating func unlink(_ slot: Int) {
            let (newer, older) = (nodes[slot].newer, nodes[slot].older)
            if newer >= 0 { nodes[newer].older = older } else { newest = older }
            if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
        }

        mutating func linkAsNewest(_ slot: Int) {
            nodes[slot].older = newest
            nodes[slot].newer = -1
            if newest >= 0 { nodes[newest].newer = slot } else { oldest = slot }
            newest = slot
        }

        /// Marks `slot` the most recently used.
        mutating func touch(_ slot: Int) {
            guard slot != newest else { return }
            unlink(slot)
            linkAsNewest(slot)
        }

        mutating func insert(_ key: Key, _ value: Value, cost: Int) {
            let node = Node(key: key, value: value, cost: cost, newer: -1, older: -1)
            let slot: Int
            if let reused = free.popLast() {
                slot = reused
                nodes[slot] = node
            } else {
                slot = nodes.count
                nodes.append(node)
            }
            slots[key] = slot
            totalCost += cost
            linkAsNewest(slot)
        }

        mutating func remove(_ slot: Int) {
            unlink(slot)
            slots[nodes[slot].key] = nil
            totalCost -= nodes[slot].cost
            // The value goes now (it may hold much memory); the slot waits for the next insert.
            nodes[slot].value = nil
            free.append(slot)
        }

        /// Evicts the least recently used entries until the total is within `budget`.
        mutating func evict(downTo budget: Int) {
            while totalCost > budget, oldest >= 0 { remove(oldest) }
        }
    }

    private let budget: Int
    private let state = Mutex(State())

    /// A cache holding at most `budget` cost units.
    public init(budget: Int) {
        self.budget = budget
    }

    /// The value for `key`, marking it used.
    /// - Complexity: O(1).
    public func value(for key: Key) -> Value? {
        state.withLock { state in
            guard let slot = state.slots[key] else { return nil }
            state.touch(slot)
            return state.nodes[slot].value
        }
    }

    /// Stores `value`, evicting the least recently used entries past the budget; an entry costing more than the
    /// whole budget is not kept.
    /// - Complexity: O(1) amortised, plus O(1) per entry evicted.
    public func set(_ value: Value, for key: Key, cost: Int) {
        guard cost <= budget else { return }
        state.withLock { state in
            if let slot = state.slots[key] { state.remove(slot) }
            state.insert(key, value, cost: cost)
            state.evict(downTo: budget)
        }
    }

    /// Replaces the entry for `key` with what `transform` makes of it (`nil`: absent), atomically; `nil` removes
    /// it. A new or replaced entry costs `cost` and is marked used.
    /// - Complexity: O(1) amortised, as ``set(_:for:cost:)``.
    public func update(_ key: Key, cost: Int, _ transform: (Value?) -> Value?) {
        guard cost <= budget else { return }
        state.withLock { state in
            let slot = state.slots[key]
            let value = transform(slot.flatMap { state.nodes[$0].value })
            if let slot { state.remove(slot) }
            guard let value else { return }
            state.insert(key, value, cost: cost)
            state.evict(downTo: budget)
        }
    }

    /// Removes the entry for `key`, if any.
    /// - Complexity: O(1).
    public func removeValue(for key: Key) {
        state.withLock { state in
            if let slot = state.slots[key] { state.remove(slot) }
        }
    }

    /// Removes every entry whose key matches.
    /// - Complexity: O(*n*) for *n* entries.
    public func removeAll(where predicate: (Key) -> Bool) {
        state.withLock { state in
            for (key, slot) in state.slots where predicate(key) { state.remove(slot) }
        }
    }

    /// The number of entries and their total cost.
    public var usage: (count: Int, cost: Int) {
        state.withLock { ($0.slots.count, $0.totalCost) }
    }
}
