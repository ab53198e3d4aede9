import Logging
import Synchronization

/// Forgets the kept answers that expired, of every list, on start and then every `interval`: a list that is never
/// written again would keep its answers for good (a list's next keyed write forgets its own, a delete all of them).
///
/// Each pass runs on the view pool (whose work yields to the requests'), a batch of answers per transaction.
final class AnswerSweep: Sendable {
    /// The application it sweeps for (weakly: the application owns this, and the sweep stops once it is gone).
    private weak let app: Application?
    private let running = Mutex(true)

    init(app: Application) {
        self.app = app
    }

    /// Seconds between passes: a quarter of an answer's life, between a minute and an hour.
    static func interval(forLifetime seconds: Int) -> Double {
        min(3_600, max(60, Double(seconds) / 4))
    }

    /// Starts the passes: one at once, then one every ``interval(forLifetime:)``.
    func start() {
        app?.pools.view.execute { [self] in pass() }
    }

    /// Stops the passes (one under way finishes).
    func shutdown() {
        running.withLock { $0 = false }
    }

    private func pass() {
        guard running.withLock({ $0 }), let app else { return }
        do {
            let forgotten = try app.idempotency.sweepExpired { running.withLock { $0 } } // a stop ends it between batches
            if forgotten > 0 { app.logger.info("forgot expired idempotency answers", metadata: ["answers": "\(forgotten)"]) }
        } catch {
            app.logger.warning("cannot forget expired idempotency answers", metadata: ["error": "\(error)"])
        }
        let pool = app.pools.view
        app.after(Self.interval(forLifetime: app.options.idempotencySeconds)) { [self] in pool.execute { [self] in pass() } }
    }
}
