import Synchronization

/// The outcome of one write, settled once by the writer and awaited by the code that made the write.
final class WriteOutcome: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Result<Int, ListWriteError>, Never>])
        case settled(Result<Int, ListWriteError>)
    }

    private let state = Mutex(State.waiting([]))

    /// The revision the write made, or why it did not land; waits until it is settled.
    func value() async -> Result<Int, ListWriteError> {
        await withCheckedContinuation { continuation in
            let settled: Result<Int, ListWriteError>? = state.withLock { state in
                switch state {
                case .settled(let result): return result
                case .waiting(let waiters):
                    state = .waiting(waiters + [continuation])
                    return nil
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Settles the outcome (the first call only) and wakes whoever waits.
    func settle(_ result: Result<Int, ListWriteError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Int, ListWriteError>, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .settled(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}
