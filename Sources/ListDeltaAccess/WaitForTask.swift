import Dispatch
import Synchronization

/// Runs `operation` to completion and returns its result, blocking the calling thread meanwhile.
///
/// For a command's main thread, which is none of Swift concurrency's: it may wait for a task without starving
/// the pool the task needs. Never call it from a task or an actor.
public func waitForTask<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await operation())
        } catch {
            outcome = .failure(error)
        }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
