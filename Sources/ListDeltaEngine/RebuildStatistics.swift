import Synchronization

/// How revisions that were not in memory got rebuilt: counted for tests, and handed to an observer (the service
/// exports them as `listdelta_rebuilds_total{from}` and `listdelta_rebuild_diffs_total{from}`).
public final class RebuildStatistics: Sendable {
    /// Where a rebuild started.
    public enum Start: String, Sendable {
        /// The current document in memory, walked back through undo diffs.
        case backwards
        /// An older revision in memory, replayed forwards.
        case memory
        /// A stored checkpoint, replayed forwards.
        case checkpoint
    }

    public struct Counts: Sendable, Equatable {
        public var rebuilds: [Start: Int] = [:]
        public var diffs: [Start: Int] = [:]
    }

    private let counts = Mutex(Counts())
    private let observer: (@Sendable (Start, _ diffs: Int) -> Void)?

    /// - Parameter observer: Told of every rebuild, on the thread that made it.
    public init(observer: (@Sendable (Start, _ diffs: Int) -> Void)? = nil) {
        self.observer = observer
    }

    /// Counts one rebuild that replayed `diffs` diffs.
    func record(_ start: Start, diffs: Int) {
        counts.withLock {
            $0.rebuilds[start, default: 0] += 1
            $0.diffs[start, default: 0] += diffs
        }
        observer?(start, diffs)
    }

    /// The counts so far.
    public var snapshot: Counts { counts.withLock { $0 } }
}
