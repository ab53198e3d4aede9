import Metrics
import Synchronization

/// How revisions that were not in memory got rebuilt: counted for tests, and for operators as
/// `listdelta_rebuilds_total{from}` and `listdelta_rebuild_diffs_total{from}` (the diffs replayed).
final class RebuildStatistics: Sendable {
    /// Where a rebuild started.
    enum Start: String, Sendable {
        /// The current document in memory, walked back through undo diffs.
        case backwards
        /// An older revision in memory, replayed forwards.
        case memory
        /// A stored checkpoint, replayed forwards.
        case checkpoint
    }

    struct Counts: Sendable, Equatable {
        var rebuilds: [Start: Int] = [:]
        var diffs: [Start: Int] = [:]
    }

    private let counts = Mutex(Counts())

    /// Counts one rebuild that replayed `diffs` diffs.
    func record(_ start: Start, diffs: Int) {
        counts.withLock {
            $0.rebuilds[start, default: 0] += 1
            $0.diffs[start, default: 0] += diffs
        }
        Counter(label: "listdelta_rebuilds_total", dimensions: [("from", start.rawValue)]).increment()
        Counter(label: "listdelta_rebuild_diffs_total", dimensions: [("from", start.rawValue)]).increment(by: Int64(diffs))
    }

    /// The counts so far.
    var snapshot: Counts { counts.withLock { $0 } }
}
