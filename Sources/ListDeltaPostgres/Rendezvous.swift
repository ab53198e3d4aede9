import Dispatch
import Synchronization

/// A result one task hands to one waiting thread, once: the first ``deliver(_:)`` counts, later ones are ignored.
final class Rendezvous<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    /// Hands `result` to the waiter, unless a result was delivered already.
    func deliver(_ result: Result<Value, any Error>) {
        let isFirst = self.result.withLock { current in
            guard current == nil else { return false }
            current = result
            return true
        }
        if isFirst { signal.signal() }
    }

    /// The delivered result, waited for at most `seconds`; `nil` when none came in time.
    func wait(seconds: Double) -> Result<Value, any Error>? {
        guard signal.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}
