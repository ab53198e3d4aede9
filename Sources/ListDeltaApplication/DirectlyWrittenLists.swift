import Synchronization

/// Lists known to be written directly only (no source feeds them and they are no view), so that a direct write
/// need not read the store to learn that it may go ahead (on PostgreSQL that read was a round trip as long as the
/// append itself).
///
/// An entry is forgotten when this instance attaches a source or a view to the list, when another instance
/// announces a change of the list's source or view, and all at once while announcements cannot be received (until they resume, every
/// check reads the store). A check that read "no source, no view" from the store records it only if nothing was forgotten
/// meanwhile, so an attach that commits during that read is never hidden. Bounded: past `capacity` lists it
/// starts over.
final class DirectlyWrittenLists: Sendable {
    private struct State {
        var lists: Set<String> = []
        var isTrusted: Bool
        /// Moves on at every forgetting, so that a read begun before it records nothing.
        var generation = 0
    }

    private let state: Mutex<State>
    private let capacity: Int

    /// - Parameter isTrusted: Whether entries may be used from the start (a store no other instance shares);
    ///   otherwise from the first ``resume()``.
    init(isTrusted: Bool, capacity: Int = 100_000) {
        state = Mutex(State(isTrusted: isTrusted))
        self.capacity = capacity
    }

    /// Whether `list` is known to have no source.
    func contains(_ list: String) -> Bool {
        state.withLock { $0.isTrusted && $0.lists.contains(list) }
    }

    /// The generation to pass to ``insert(_:readIn:)`` for a read of the store that starts now.
    var generation: Int { state.withLock { $0.generation } }

    /// Records that the store had no source for `list` in a read begun at `generation`.
    func insert(_ list: String, readIn generation: Int) {
        state.withLock { state in
            guard state.isTrusted, state.generation == generation else { return }
            if state.lists.count >= capacity { state.lists.removeAll(keepingCapacity: true) }
            state.lists.insert(list)
        }
    }

    /// Forgets `list` (its source changed, here or elsewhere).
    func remove(_ list: String) {
        state.withLock { state in
            state.generation += 1
            state.lists.remove(list)
        }
    }

    /// Stops using and recording entries: announcements of other instances' changes cannot be received.
    func suspend() {
        state.withLock { state in
            state.generation += 1
            state.isTrusted = false
            state.lists.removeAll()
        }
    }

    /// Uses and records entries again, starting from none.
    func resume() {
        state.withLock { state in
            state.generation += 1
            state.isTrusted = true
            state.lists.removeAll()
        }
    }
}
