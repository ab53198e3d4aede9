import ListDeltaCore
import Synchronization

/// The newest revision of each followed base as its queries read it, one ``ViewBase`` for all of them: a query's
/// index asks its base for each item's position when it updates, and that map (O(*n*) to build) is then built once
/// per base revision, not once per query.
final class SharedBases: Sendable {
    private let bases = Mutex<[String: (revision: Int, base: ViewBase)]>([:])

    /// The shared base of `list` at `revision`, made by `make` (and kept) when the one kept is of another revision.
    /// - Complexity: O(1), plus `make`.
    func base(_ list: String, revision: Int, _ make: () -> ViewBase) -> ViewBase {
        if let kept = bases.withLock({ $0[list] }), kept.revision == revision { return kept.base }
        let made = make()
        return bases.withLock { bases in
            if let kept = bases[list], kept.revision == revision { return kept.base }
            if let kept = bases[list], kept.revision > revision { return made }
            bases[list] = (revision, made)
            return made
        }
    }

    /// Forgets a deleted base's (one created again numbers its revisions anew).
    func forget(_ list: String) {
        bases.withLock { _ = $0.removeValue(forKey: list) }
    }

    /// Forgets the bases no query follows any more.
    func retain(only lists: Set<String>) {
        bases.withLock { bases in
            for list in bases.keys where !lists.contains(list) { bases[list] = nil }
        }
    }
}
