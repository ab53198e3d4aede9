/// A map from item id to flat index, for the ids a diff could not match in order.
///
/// Open addressing over one array of 64-bit slots (32 bits of hash, 32 bits of flat index), so a lookup touches
/// one slot, and the id of an entry only when its 32 check bits match. The table holds no ids itself: the caller
/// hashes them (`hash(_:)`: the standard library's per-process seeded hasher, so crafted ids cannot force
/// collisions) and confirms a candidate by comparing its own id at that index.
struct IDTable {
    private var slots: [UInt64]
    private let mask: Int

    /// A table for up to `capacity` ids.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// The hash the table files `id` under.
    @inline(__always)
    static func hash(_ id: String) -> Int { id.hashValue }

    /// Adds `index` under `hash`; the caller guarantees that the ids it adds are unique.
    /// - Complexity: O(1) expected.
    mutating func insert(hash: Int, _ index: Int32) {
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = Self.tag(hash) << 32 | UInt64(UInt32(bitPattern: index + 1))
    }

    /// The index filed under `hash` whose id `isMatch` confirms, or -1.
    /// - Complexity: O(1) expected.
    func find(hash: Int, _ isMatch: (Int32) -> Bool) -> Int32 {
        let tag = Self.tag(hash)
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return -1 }
            if entry >> 32 == tag {
                let index = Int32(bitPattern: UInt32(truncatingIfNeeded: entry)) - 1
                if isMatch(index) { return index }
            }
            slot = (slot + 1) & mask
        }
    }

    /// The slot's check bits: the hash's upper half (its lower bits pick the slot).
    @inline(__always)
    private static func tag(_ hash: Int) -> UInt64 {
        UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: hash >> 32))
    }
}
