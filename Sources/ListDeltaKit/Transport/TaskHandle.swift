import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession task that may be cancelled before it was started: whichever of `start` and `cancel` comes
/// second acts, so a cancellation racing the start is never lost.
final class TaskHandle: Sendable {
    private enum State {
        case waiting
        case running(URLSessionTask)
        case cancelled
    }

    private let state = Mutex(State.waiting)

    /// Resumes `task`, or cancels it at once when `cancel()` came first.
    func start(_ task: URLSessionTask) {
        let cancelled = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .running(task)
            return false
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    /// Cancels the task, now or as soon as it starts.
    func cancel() {
        let task = state.withLock { state -> URLSessionTask? in
            defer { state = .cancelled }
            if case .running(let task) = state { return task }
            return nil
        }
        task?.cancel()
    }
}
