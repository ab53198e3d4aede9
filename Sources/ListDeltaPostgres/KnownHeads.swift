import ListDeltaStorage
import Synchronization

/// The stored head of each list as this instance last saw it (read, written, or returned by a refused append),
/// from which the next append is decided without reading the head first.
///
/// Only a guess: another instance may have moved a head since, and the append function refuses a write decided
/// from a head that is no longer current (returning the head as it is). Bounded: past `capacity` lists it starts
/// over, which costs each list one read of its head.
final class KnownHeads: Sendable {
    private let heads = Mutex<[String: StoredHead]>([:])
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The head last seen for `id`, or `nil` when none is known (an id found to have no row is not recorded).
    func head(_ id: String) -> StoredHead? {
        heads.withLock { $0[id] }
    }

    /// Records `head` as the current head of its list.
    func remember(_ head: StoredHead) {
        heads.withLock { heads in
            if heads.count >= capacity, heads[head.head.id] == nil { heads.removeAll(keepingCapacity: true) }
            heads[head.head.id] = head
        }
    }

    /// Forgets `id`: its head is unknown (a call about it failed midway, or it has no row).
    func forget(_ id: String) {
        _ = heads.withLock { $0.removeValue(forKey: id) }
    }
}
