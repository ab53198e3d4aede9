import Dispatch

/// The application's one timer queue: it fires deadlines (a long poll's `wait`, a stream's heartbeat, a scheduler's
/// tick) and only hands work on (to a pool or a responder): nothing runs on it that takes time.
public final class Timers: Sendable {
    private let queue = DispatchQueue(label: "listdelta.timers")

    init() {}

    /// Runs `job` after `seconds`.
    public func after(_ seconds: Double, _ job: @escaping @Sendable () -> Void) {
        queue.asyncAfter(deadline: .now() + seconds, execute: job)
    }
}
