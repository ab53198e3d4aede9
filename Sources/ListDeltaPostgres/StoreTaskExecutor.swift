import Dispatch

/// Where the PostgreSQL store's tasks run: threads of its own (a concurrent dispatch queue), never Swift
/// concurrency's cooperative pool.
///
/// The store's calls block a worker while a task does the work (``BlockingCall``), and the client's pool, its
/// listener and every query are tasks too. On the cooperative pool (as many threads as cores) they would wait for
/// whatever else runs there; a process that blocks those threads (a test runner, a library) would starve the
/// database calls until their deadline. With this executor preferred, the store's tasks and the tasks they start
/// run here, and only wait for PostgreSQL.
final class StoreTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor every store of the process shares.
    static let shared = StoreTaskExecutor()

    private let queue = DispatchQueue(label: "listdelta.postgres", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
