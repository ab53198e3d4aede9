import ListDeltaEngine
import ListDeltaStorage
import Synchronization
import Tracing

/// Runs the updates of what is kept over a base list (its views, its followed queries) on a pool: at most one at a
/// time per base, and while one runs, any number of further requests for the same base fold into one more run
/// (which reads the base as it is then). So the queued work is bounded by the number of bases, whatever the rate
/// of writes. Each base's `Updater` (its state between runs) is made on its first run and kept between runs.
final class BaseScheduler<Updater: Sendable>: Sendable {
    private struct Entry {
        var isRunning = false
        var isDue = false
        /// The latest write of the base this instance made since the last run, when known.
        var hint: WriteOutcome?
        /// Kept between runs (taken out while one runs).
        var updater: Updater?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let run: @Sendable (inout Updater, WriteOutcome?) -> Void
    private let make: @Sendable (String) -> Updater
    private let execute: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// - Parameters:
    ///   - execute: Runs a job on a worker.
    ///   - make: A base's first updater.
    ///   - run: One update of a base with its updater.
    init(
        execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void, make: @escaping @Sendable (String) -> Updater,
        run: @escaping @Sendable (inout Updater, WriteOutcome?) -> Void
    ) {
        self.execute = execute
        self.make = make
        self.run = run
    }

    /// Asks for an update of `base` (after `outcome`, when this instance wrote it).
    func schedule(_ base: String, outcome: WriteOutcome?) {
        let start = entries.withLock { entries -> Bool in
            var entry = entries[base] ?? Entry()
            entry.isDue = true
            entry.hint = outcome
            let start = !entry.isRunning
            entry.isRunning = true
            entries[base] = entry
            return start
        }
        if start { execute { [self] in drain(base) } }
    }

    /// Forgets what is kept for bases that are not in `bases` any more.
    func retain(only bases: Set<String>) {
        entries.withLock { entries in
            for (base, entry) in entries where !entry.isRunning && !bases.contains(base) {
                entries[base] = nil
            }
        }
    }

    private func drain(_ base: String) {
        while true {
            let taken = entries.withLock { entries -> (Updater, WriteOutcome?)? in
                guard var entry = entries[base], entry.isDue else {
                    entries[base]?.isRunning = false
                    return nil
                }
                let updater = entry.updater ?? make(base)
                let hint = entry.hint
                entry.isDue = false
                entry.hint = nil
                entry.updater = nil
                entries[base] = entry
                return (updater, hint)
            }
            guard let (taken, hint) = taken else { return }
            var updater = taken
            // Traced under the write that asked for this run (the latest one folded into it), not under whatever
            // handed the drain to the pool; a run with no write of this instance behind it is a trace of its own.
            ServiceContext.$current.withValue(CommitTracing.context(ofTraceParent: hint?.trace?.traceParent)) { run(&updater, hint) }
            entries.withLock { entries in entries[base]?.updater = updater }
        }
    }
}
