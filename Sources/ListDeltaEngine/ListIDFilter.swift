import Synchronization

/// A Bloom filter of the ids of lists that exist: an id it has never seen certainly names no list, so a read of an
/// unknown id is answered 404 on the event loop, never by a lookup on disk. An id it has seen may exist (or may
/// have been deleted since, or collide: about 1% at its capacity); those go to the store as before.
///
/// Ids are added before the write that creates them commits, so a reader never misses a list that exists. It
/// never forgets an id (deleted lists fall through to the store). Past its capacity it stays correct and its
/// false-positive rate rises slowly; it is sized at start-up for twice the lists then present (at least a
/// million: 1.2 MiB).
///
/// A store shared by several processes would have to feed it every id created elsewhere; until then, such a
/// setup runs without it (see `ListRepository`).
final class ListIDFilter: Sendable {
    private static let hashCount = 7
    private let bitCount: Int
    private let bits: Mutex<[UInt64]>
    private let seed = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    /// A filter for about `capacity` ids at a 1% false-positive rate (about 9.6 bits per id).
    init(capacity: Int) {
        let bitCount = max(1 << 16, capacity * 10).roundedUpToMultiple(of: 64)
        self.bitCount = bitCount
        self.bits = Mutex([UInt64](repeating: 0, count: bitCount / 64))
    }

    /// Adds `id`.
    /// - Complexity: O(*k*) for *k* hash functions (7), plus hashing the id.
    func insert(_ id: String) {
        let positions = self.positions(of: id)
        bits.withLock { bits in
            for position in positions { bits[position >> 6] |= 1 << UInt64(position & 63) }
        }
    }

    /// `false` when `id` was certainly never inserted.
    /// - Complexity: O(*k*), plus hashing the id.
    func mightContain(_ id: String) -> Bool {
        let positions = self.positions(of: id)
        return bits.withLock { bits in
            positions.allSatisfy { bits[$0 >> 6] & (1 << UInt64($0 & 63)) != 0 }
        }
    }

    /// The bit positions of `id`: double hashing of two seeded hashes.
    private func positions(of id: String) -> [Int] {
        var first = Hasher()
        first.combine(seed.0)
        first.combine(id)
        var second = Hasher()
        second.combine(seed.1)
        second.combine(id)
        let a = UInt64(bitPattern: Int64(first.finalize()))
        let b = UInt64(bitPattern: Int64(second.finalize())) | 1
        let size = UInt64(bitCount)
        return (0..<Self.hashCount).map { Int((a &+ UInt64($0) &* b) % size) }
    }
}

extension Int {
    fileprivate func roundedUpToMultiple(of step: Int) -> Int { (self + step - 1) / step * step }
}
