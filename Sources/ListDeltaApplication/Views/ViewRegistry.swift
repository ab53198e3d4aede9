import ListDeltaEngine
import ListDeltaStorage
import Synchronization

/// Which lists have views, as this instance last read them from the store, and the hook through which a
/// committed write of a base has its views brought up to date.
///
/// Every write asks ``baseChanged(_:outcome:)``, so the check is one dictionary lookup under a lock. The map is
/// replaced by each sweep of the store (``replaceAll(_:readIn:)``) and changed at once by this instance's own
/// attaches and detaches; a sweep whose read began before such a change replaces nothing, so it cannot bring back
/// what was just detached.
final class ViewRegistry: Sendable {
    /// Hands a base (and the write that changed it, when known) to whoever updates its views.
    typealias Scheduler = @Sendable (_ base: String, _ outcome: WriteOutcome?) -> Void

    private struct State {
        var byBase: [String: [StoredView]] = [:]
        var baseOf: [String: String] = [:]
        /// Moves on at every local change, so that a sweep read before it replaces nothing.
        var generation = 0
        var scheduler: Scheduler?
        var refresher: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// Sets who updates views (once, when the view service starts).
    func setScheduler(_ scheduler: @escaping Scheduler) {
        state.withLock { $0.scheduler = scheduler }
    }

    /// Sets what reads the views from the store again (once, when the view service starts).
    func setRefresher(_ refresher: @escaping @Sendable () -> Void) {
        state.withLock { $0.refresher = refresher }
    }

    /// Tells the registry that another instance attached, changed or detached a view (or a source) of `list`: the
    /// views are read from the store again, at once rather than at the next sweep.
    func changedElsewhere(_ list: String) {
        let refresher = state.withLock { $0.refresher }
        refresher?()
    }

    /// Tells the registry that `base` changed (a write committed, or it was deleted): its views, if it has any,
    /// are scheduled for an update.
    /// - Complexity: O(1).
    func baseChanged(_ base: String, outcome: WriteOutcome?) {
        let scheduler = state.withLock { state in state.byBase[base] == nil ? nil : state.scheduler }
        scheduler?(base, outcome)
    }

    /// The views of `base`, by list id.
    func views(of base: String) -> [StoredView] {
        state.withLock { $0.byBase[base] ?? [] }
    }

    /// Every base that has views.
    var bases: [String] {
        state.withLock { Array($0.byBase.keys) }
    }

    /// How many views there are.
    var count: Int {
        state.withLock { $0.baseOf.count }
    }

    /// The generation to pass to ``replaceAll(_:readIn:)`` for a read of the store that starts now.
    var generation: Int {
        state.withLock { $0.generation }
    }

    /// Replaces the map with what the store holds, read in a read that began at `generation`; `false` (nothing
    /// replaced) when this instance changed a view since.
    @discardableResult
    func replaceAll(_ views: [StoredView], readIn generation: Int) -> Bool {
        state.withLock { state in
            guard state.generation == generation else { return false }
            state.byBase = Dictionary(grouping: views, by: \.base)
            state.baseOf = Dictionary(views.map { ($0.list, $0.base) }, uniquingKeysWith: { first, _ in first })
            return true
        }
    }

    /// Records a view this instance attached or changed.
    func put(_ view: StoredView) {
        state.withLock { state in
            state.generation += 1
            Self.remove(view.list, from: &state)
            state.byBase[view.base, default: []].append(view)
            state.byBase[view.base]?.sort { $0.list < $1.list }
            state.baseOf[view.list] = view.base
        }
    }

    /// Records that `list` is no view any more.
    func remove(_ list: String) {
        state.withLock { state in
            state.generation += 1
            Self.remove(list, from: &state)
        }
    }

    /// Records that `list`'s content reached `step` (so that a sweep does not schedule it again).
    func record(_ list: String, step: ViewStep) {
        state.withLock { state in
            guard let base = state.baseOf[list], let index = state.byBase[base]?.firstIndex(where: { $0.list == list }),
                var view = state.byBase[base]?[index], view.generation == step.generation, view.baseStep < step.baseStep
            else { return }
            view.baseStep = step.baseStep
            state.byBase[base]?[index] = view
        }
    }

    private static func remove(_ list: String, from state: inout State) {
        guard let base = state.baseOf.removeValue(forKey: list) else { return }
        state.byBase[base]?.removeAll { $0.list == list }
        if state.byBase[base]?.isEmpty == true { state.byBase[base] = nil }
    }
}
