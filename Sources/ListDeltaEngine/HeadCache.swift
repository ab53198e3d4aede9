import ListDeltaStorage
import Synchronization

/// The heads of recently used lists, kept right when other instances write to the same store.
///
/// A head read from the store may be stale by the time it is cached: another instance may have committed, and
/// its announcement (``announce(_:revision:deleted:)``) may have arrived while the read was in flight. So an
/// announcement leaves a marker, "at least this version", where no newer head is cached, and a head older than
/// the marker is neither served nor cached: readers go to the store instead. A list's versions are ordered by
/// revision, and at equal revisions its tombstone comes after the live head (revision numbers are never reused).
///
/// While announcements cannot be received (``suspend()``), nothing is served from the cache nor put in it; a read
/// that began before a suspension or a resumption caches nothing (``generation``).
///
/// Bounded by count (the least recently used entries go first); a marker costs what a head costs.
final class HeadCache: Sendable {
    private enum Entry: Sendable {
        case head(ListHead)
        /// Announced by another instance; no head at least this new is known here.
        case atLeast(Int)
    }

    private let entries: LRUCache<String, Entry>
    /// Odd while suspended; bumped by each suspension and resumption.
    private let epoch = Atomic<Int>(0)

    /// A cache of at most `capacity` heads and markers.
    init(capacity: Int) {
        entries = LRUCache(budget: max(1, capacity))
    }

    /// A head's place in its list's history: revision, then live before deleted.
    static func version(revision: Int, deleted: Bool) -> Int { revision * 2 + (deleted ? 1 : 0) }

    private static func version(of head: ListHead) -> Int { version(revision: head.revision, deleted: head.isDeleted) }

    /// Where the cache stands: read it before a store read and pass it to ``remember(_:readIn:)``.
    var generation: Int { epoch.load(ordering: .acquiring) }

    /// The cached head of `id`, unless an announcement made it stale (none while suspended).
    /// - Complexity: O(1).
    func head(_ id: String) -> ListHead? {
        guard generation % 2 == 0, case .head(let head) = entries.value(for: id) else { return nil }
        return head
    }

    /// Caches `head` unless something newer is known, or the cache was suspended or resumed since `generation`
    /// (the head may then predate a commit nobody announced).
    /// - Complexity: O(1) amortised.
    func remember(_ head: ListHead, readIn generation: Int) {
        guard generation % 2 == 0 else { return }
        let version = Self.version(of: head)
        entries.update(head.id, cost: 1) { entry in
            switch entry {
            case .head(let cached) where Self.version(of: cached) > version: return entry
            case .atLeast(let floor) where floor > version: return entry
            default: return .head(head)
            }
        }
        // Suspended or resumed meanwhile: what was just cached may be stale.
        if self.generation != generation { entries.removeValue(for: head.id) }
    }

    /// Records that another instance committed `revision` of `id` (or deleted it at `revision`): an older cached
    /// head is replaced by a marker, so the next read goes to the store.
    /// - Returns: whether this instance had to forget something (a cached head older than the announcement).
    @discardableResult
    func announce(_ id: String, revision: Int, deleted: Bool) -> Bool {
        let version = Self.version(revision: revision, deleted: deleted)
        var forgot = false
        entries.update(id, cost: 1) { entry in
            switch entry {
            case .head(let cached) where Self.version(of: cached) >= version: return entry
            case .atLeast(let floor) where floor >= version: return entry
            case .head: forgot = true
            default: break
            }
            return .atLeast(version)
        }
        return forgot
    }

    /// Forgets `id` (after this instance deleted it and before it reads the tombstone).
    func forget(_ id: String) { entries.removeValue(for: id) }

    /// Stops serving and caching heads: announcements cannot be received, so any head may go stale.
    func suspend() {
        if epoch.load(ordering: .acquiring) % 2 == 0 { epoch.add(1, ordering: .acquiringAndReleasing) }
        entries.removeAll { _ in true }
    }

    /// Serves and caches heads again, starting empty: announcements are received again.
    func resume() {
        entries.removeAll { _ in true }
        if epoch.load(ordering: .acquiring) % 2 == 1 { epoch.add(1, ordering: .acquiringAndReleasing) }
    }

    /// The number of entries.
    var count: Int { entries.usage.count }
}
