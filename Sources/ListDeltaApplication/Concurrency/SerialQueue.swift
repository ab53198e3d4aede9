import Synchronization

/// Jobs run one at a time, in order, on a ``WorkerPool``: a serial lane (one event stream's events) that holds no
/// thread while it has nothing to do.
public final class SerialQueue: Sendable {
    private let pool: WorkerPool
    private let state = Mutex<(jobs: [WorkerPool.Job], scheduled: Bool)>(([], false))

    public init(pool: WorkerPool) { self.pool = pool }

    /// Queues `job` after the ones already queued (a continuation of admitted work: never refused).
    public func async(_ job: @escaping WorkerPool.Job) {
        let schedule = state.withLock { state in
            state.jobs.append(job)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if schedule { pool.execute { [self] in drain() } }
    }

    private func drain() {
        while true {
            let jobs = state.withLock { state in
                defer { state.jobs.removeAll() }
                if state.jobs.isEmpty { state.scheduled = false }
                return state.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job() }
        }
    }
}
