import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaKit

/// A follower driving a simulated UIKit view through a `ListBinding`, as an app would: every update is applied
/// on the main actor, every batch checked against UIKit's rules (a violation is a test issue), and the data
/// source's document after each update is kept for comparison with the server.
@MainActor
final class FollowedList {
    let view = SimulatedListView()
    let binding: ListBinding<SimulatedListView>
    let retries = RetryLog()
    /// Each update with the data source's document right after it was applied.
    private(set) var seen: [(update: ListUpdate, shown: ListDocument)] = []
    private var task: Task<Void, Never>?

    init(_ server: URL, _ list: String, mode: FollowOptions.Mode) {
        binding = ListBinding(view: view)
        let binding = binding
        view.dataProvider = { binding.dataSource }
        view.onViolation = { Issue.record("the view refused a batch: \($0)") }
        var options = FollowOptions(mode: mode)
        options.wait = 5
        options.backoff = Backoff.Configuration(initial: .milliseconds(20), maximum: .milliseconds(200))
        options.onRetry = { [retries] error, _ in retries.record(error) }
        let follower = ListFollower(baseURL: server, listID: list, options: options)
        task = Task { @MainActor [weak self] in
            for await update in follower {
                guard let self else { return }
                binding.apply(update)
                seen.append((update, binding.dataSource.document))
            }
        }
    }

    /// The revisions of the updates so far.
    var revisions: [Int] { seen.map(\.update.document.revision) }

    /// Waits until `condition` holds (checked every 10 ms), at most `seconds`.
    @discardableResult
    func wait(seconds: Double = 20, until condition: (FollowedList) -> Bool) async -> Bool {
        await waitFor(seconds: seconds) { condition(self) }
    }

    /// Waits until the view shows `revision`.
    @discardableResult
    func wait(forRevision revision: Int, seconds: Double = 20) async -> Bool {
        await wait(seconds: seconds) { $0.binding.dataSource.revision >= revision }
    }

    func stop() {
        task?.cancel()
    }
}
