import ListDeltaEngine
import Tracing
import Dispatch
import Foundation
import Glibc
import Synchronization

/// A fixed set of worker threads with a bounded queue: where the service's slow work runs (the store, rebuilding
/// revisions, diffs, compressing new bodies, inflating request bodies), never on an event loop.
///
/// New work is *admitted* with ``submit(_:)``, which refuses it when ``queueLimit`` jobs already wait: the caller
/// answers 503 with `Retry-After` instead of queueing without bound. Work that continues something already
/// admitted (a parked poll woken by a write, an event stream's next event, an async task resuming) uses
/// ``execute(_:)``, which is never refused: it is bounded by what was admitted and by the open connections.
///
/// The pool is also a `TaskExecutor`: async work started with `Task(executorPreference: pool)` or
/// `withTaskExecutorPreference(pool)` runs on these threads. (The PostgreSQL store does not: its calls run on
/// its own `StoreTaskExecutor` while a worker waits for them; see ``EventLoopCheck`` for the four kinds of
/// threads.)
///
/// Threading: every method may be called from any thread. Jobs run in submission order, on any worker.
public final class WorkerPool: Sendable {
    public typealias Job = @Sendable () -> Void

    private struct State {
        var jobs: [Job?] = []
        var head = 0
        var running = 0
        var rejected = 0
        var stopping = false

        var queued: Int { jobs.count - head }

        mutating func append(_ job: @escaping Job) { jobs.append(job) }

        mutating func next() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head >= 64, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// A name for logs, metrics and thread names.
    public let name: String
    /// The worker threads.
    public let threadCount: Int
    /// How many admitted jobs may wait for a worker before ``submit(_:)`` refuses more.
    public let queueLimit: Int

    private let state = Mutex(State())
    private let workerThreads = Mutex(Set<pthread_t>())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()

    /// Starts `threads` workers.
    /// - Parameter niceness: Added to the workers' nice value (Linux schedules each thread by its own): a pool whose
    ///   work must yield to the requests' (view updates) runs at a positive one, and still uses idle cores fully.
    public init(name: String, threads: Int, queueLimit: Int, niceness: Int32 = 0) {
        precondition(threads >= 1 && queueLimit >= 0, "a pool needs a thread and a non-negative queue limit")
        self.name = name
        self.threadCount = threads
        self.queueLimit = queueLimit
        for index in 0..<threads {
            finished.enter()
            let thread = Thread { [self] in
                workerThreads.withLock { _ = $0.insert(pthread_self()) }
                // On Linux, who 0 names the calling thread alone (its nice value is its own, not the process's).
                if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
                work()
                finished.leave()
            }
            thread.name = "listdelta-\(name)-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Admits `job` unless ``queueLimit`` jobs already wait or the pool is stopping.
    /// - Returns: `false` when refused (the job will not run).
    /// - Complexity: O(1) amortised.
    public func submit(_ job: @escaping Job) -> Bool {
        let job = Self.inCurrentContext(job)
        let accepted = state.withLock { state in
            guard !state.stopping, state.queued < queueLimit else {
                state.rejected += 1
                return false
            }
            state.append(job)
            return true
        }
        if accepted { wake.signal() }
        return accepted
    }

    /// Runs `job`, which continues admitted work, on a worker: never refused while the pool runs (after
    /// ``shutdown()`` it is dropped).
    /// - Complexity: O(1) amortised.
    public func execute(_ job: @escaping Job) {
        let job = Self.inCurrentContext(job)
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            state.append(job)
            return true
        }
        if accepted { wake.signal() }
    }

    /// `job`, run in the trace context current where it was handed over (a request's span), so that what it
    /// does is traced under it; `job` itself when there is none.
    private static func inCurrentContext(_ job: @escaping Job) -> Job {
        guard Spans.isEnabled, let context = ServiceContext.current else { return job }
        return { ServiceContext.$current.withValue(context) { job() } }
    }

    private func work() {
        while true {
            wake.wait()
            let job: Job? = state.withLock { state in
                guard let job = state.next() else { return nil }
                state.running += 1
                return job
            }
            guard let job else {
                if state.withLock({ $0.stopping && $0.queued == 0 }) { return }
                continue
            }
            job()
            state.withLock { $0.running -= 1 }
        }
    }

    /// Lets the queued jobs finish, then stops the workers; waits up to `timeout` seconds for them.
    /// Later ``submit(_:)`` calls are refused and ``execute(_:)`` calls dropped. Idempotent.
    public func shutdown(timeout: Double = 10) {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        for _ in 0..<threadCount { wake.signal() }
        _ = finished.wait(timeout: .now() + timeout)
    }

    /// Whether the calling thread is one of this pool's workers.
    public var isCurrentThreadAWorker: Bool { workerThreads.withLock { $0.contains(pthread_self()) } }

    /// Jobs waiting, jobs running, and submissions refused since start.
    public var usage: (queued: Int, running: Int, rejected: Int) {
        state.withLock { ($0.queued, $0.running, $0.rejected) }
    }
}

extension WorkerPool: TaskExecutor {
    /// Runs a task's job on a worker (a continuation of admitted work: see ``execute(_:)``).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        execute { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }
}
