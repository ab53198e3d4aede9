/// A map from item id to flat index, for the ids a diff could not match in order.
///
/// Open addressing over one array of 64-bit slots (32 bits of hash, 32 bits of index), so a lookup touches
/// one slot and one id; ids hash with the standard library's per-process seeded hasher, so crafted ids
/// cannot force collisions.
struct IDTable {
    private var slots: [UInt64]
    private var ids: [String] = []
    private let mask: Int

    /// A table for up to `capacity` ids.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        ids.reserveCapacity(capacity)
    }

    /// Adds `id` with `index`; the caller guarantees ids are unique.
    /// - Complexity: O(1) expected.
    mutating func insert(_ id: String, _ index: Int32) {
        let hash = id.hashValue
        let tag = UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: hash >> 32))
        var slot = hash & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        ids.append(id)
        slots[slot] = tag << 32 | UInt64(ids.count)
        indexes.append(index)
    }

    private var indexes: [Int32] = []

    /// The index stored for `id`, or -1.
    /// - Complexity: O(1) expected.
    func find(_ id: String) -> Int32 {
        let hash = id.hashValue
        let tag = UInt64(truncatingIfNeeded: UInt32(truncatingIfNeeded: hash >> 32))
        var slot = hash & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { return -1 }
            if entry >> 32 == tag {
                let position = Int(entry & 0xFFFF_FFFF) - 1
                if ids[position] == id { return indexes[position] }
            }
            slot = (slot + 1) & mask
        }
    }
}
