import Dispatch
import ListDeltaStorage
import Synchronization

/// Runs async PostgresNIO work for the service's synchronous store calls, which come from worker threads.
///
/// The calling thread waits on a semaphore while a task does the work on PostgresNIO's event loops; it never runs
/// on an event loop or in the cooperative pool, so waiting there blocks nothing else. A call that outlives its
/// deadline is cancelled and fails with ``StoreError/unavailable(_:)``: a client waits for a database that does
/// not answer no longer than that.
enum BlockingCall {
    private final class Outcome<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// The result of `operation`, waited for at most `seconds`.
    /// - Throws: what `operation` throws, mapped to a ``StoreError``; ``StoreError/unavailable(_:)`` past the deadline.
    static func run<T: Sendable>(
        seconds: Double, _ operation: @escaping @Sendable () async throws -> T
    ) throws(StoreError) -> T {
        let outcome = Outcome<T>()
        let task = Task(executorPreference: StoreTaskExecutor.shared) {
            let result: Result<T, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            outcome.result.withLock { $0 = result }
            outcome.done.signal()
        }
        guard outcome.done.wait(timeout: .now() + seconds) == .success else {
            task.cancel()
            throw .unavailable("no answer from the database in \(formatted(seconds)) s")
        }
        switch outcome.result.withLock({ $0 })! {
        case .success(let value): return value
        case .failure(let error): throw StoreError(postgres: error)
        }
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
