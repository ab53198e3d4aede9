/// The application's worker pools (docs/architecture.md, Threads and executors): where everything that may block
/// runs, each with its own threads so that one kind of work never takes another's.
public final class WorkerPools: Sendable {
    /// Reads that memory cannot answer: the store, rebuilding old revisions, diffs, compressing new bodies.
    public let read: WorkerPool
    /// Writes, so that a flood of writes waiting for the store never takes the threads reads need.
    public let write: WorkerPool
    /// Views brought up to date after their bases' writes: as many threads as the write pool, at a lower priority
    /// than the requests' threads, so that a base's write is acknowledged as fast with views as without.
    public let view: WorkerPool
    /// Live queries brought up to date after their bases' writes: their held polls wait for it, so it runs at the
    /// requests' priority (a base's write is acknowledged before its queries are updated).
    public let query: WorkerPool

    init(options: ApplicationOptions) {
        read = WorkerPool(name: "read", threads: options.readThreads, queueLimit: options.maximumQueuedJobs)
        write = WorkerPool(name: "write", threads: options.writeThreads, queueLimit: options.maximumQueuedJobs)
        view = WorkerPool(name: "view", threads: options.writeThreads, queueLimit: 0, niceness: 5)
        query = WorkerPool(name: "query", threads: options.writeThreads, queueLimit: 0)
    }

    /// Every pool of the application, the sources' fetch pool aside (it belongs to ``SourceKeeper``).
    public var all: [WorkerPool] { [read, write, view, query] }

    /// Stops the pools after their queued work.
    func shutdown() {
        for pool in all { pool.shutdown() }
    }
}
