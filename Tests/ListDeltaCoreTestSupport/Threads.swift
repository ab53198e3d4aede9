import Dispatch
import Glibc

/// Runs `body` on a new detached thread (none of Swift concurrency's: it may block).
public func runOnThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let argument = Unmanaged.passRetained(Box(body)).toOpaque()
    pthread_create(&thread, nil, { argument in
        Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
        return nil
    }, argument)
    pthread_detach(thread)
}

/// Runs `body(0)`, ..., `body(count - 1)` at once, each on a thread of its own (``runOnThread(_:)``), and returns
/// once they all have: `DispatchQueue.concurrentPerform` for bodies that block. On Linux, Dispatch has as many worker
/// threads as cores and adds none for one that blocks, so iterations that wait for a store would hold the threads
/// the store's own work (its tasks, on a Dispatch queue) needs, until its deadline.
public func concurrentlyOnOwnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let running = DispatchGroup()
    for index in 0..<count {
        running.enter()
        runOnThread {
            body(index)
            running.leave()
        }
    }
    running.wait()
}

/// Runs `body` on a thread of its own and awaits its result: what an async test does with calls that block their
/// thread (a store's, which wait for their database), which must never run on one of Swift concurrency's few
/// cooperative threads (tests run there), as they never do in the service (its workers are threads of their own).
///
/// `body` stays in the test's task (its task executor is ``OwnThreads``), so what it records (`#expect`) is the
/// test's, as it would be on the test's own thread.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(OwnThreads.executor) { try body() }
}

/// A task executor that runs each job on a new thread (``runOnThread(_:)``), where it may block.
final class OwnThreads: TaskExecutor {
    static let executor = OwnThreads()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        runOnThread { job.runSynchronously(on: executor) }
    }
}
