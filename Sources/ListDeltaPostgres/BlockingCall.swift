import ListDeltaStorage

/// Runs async PostgresNIO work for the service's synchronous store calls, which come from worker threads.
///
/// The calling thread waits on a semaphore while a task does the work on PostgresNIO's event loops; it never runs
/// on an event loop or in the cooperative pool, so waiting there blocks nothing else. A call that outlives its
/// deadline is cancelled and fails with ``StoreError/unavailable(_:)``: a client waits for a database that does
/// not answer no longer than that.
enum BlockingCall {
    /// The result of `operation`, waited for at most `seconds`.
    /// - Throws: what `operation` throws, mapped to a ``StoreError``; ``StoreError/unavailable(_:)`` past the deadline.
    static func run<T: Sendable>(
        seconds: Double, _ operation: @escaping @Sendable () async throws -> T
    ) throws(StoreError) -> T {
        let outcome = Rendezvous<T>()
        let task = Task(executorPreference: StoreTaskExecutor.shared) {
            do {
                outcome.deliver(.success(try await operation()))
            } catch {
                outcome.deliver(.failure(error))
            }
        }
        return try awaitResult(of: outcome, seconds: seconds, cancelling: task)
    }

    /// The result `outcome` delivers, waited for at most `seconds`, after which `task` is cancelled.
    /// - Throws: the delivered error, mapped to a ``StoreError``; ``StoreError/unavailable(_:)`` past the deadline.
    private static func awaitResult<T: Sendable>(of outcome: Rendezvous<T>, seconds: Double, cancelling task: Task<Void, Never>) throws(StoreError) -> T {
        guard let result = outcome.wait(seconds: seconds) else {
            task.cancel()
            throw .unavailable("no answer from the database in \(formatted(seconds)) s")
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw StoreError(postgres: error)
        }
    }

    private static func formatted(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
