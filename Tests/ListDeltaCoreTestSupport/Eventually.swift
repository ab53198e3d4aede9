import Foundation

/// Waits for `condition` to hold, checking it every 10 ms for up to `seconds`: the wait of a test for something
/// another thread makes true (an answer, a count, a log line). Returns whether it held.
public func eventually(_ seconds: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

/// ``eventually(_:_:)`` for async tests: waits for `condition` without blocking a thread of Swift concurrency's.
public func waitFor(
    seconds: Double = 5, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return true
}
