import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaKit

/// A writer driving a simulated UIKit view, as an app would: every update (optimistic writes and rollbacks
/// included) is performed on the view through a `ListBinding`, and every batch checked against UIKit's rules (a
/// violation is a test issue).
@MainActor
final class WrittenList {
    let writer: ListWriter
    let transport: FaultyTransport
    let view = SimulatedListView()
    let binding: ListBinding<SimulatedListView>
    let retries = RetryLog()
    /// Every update, in order.
    private(set) var seen: [ListUpdate] = []
    private var task: Task<Void, Never>?

    init(_ server: URL, _ list: String, transport: FaultyTransport = FaultyTransport(), storage: (any ListStorage)? = nil) {
        self.transport = transport
        binding = ListBinding(view: view)
        let binding = binding
        view.dataProvider = { binding.dataSource }
        view.onViolation = { Issue.record("the view refused a batch: \($0)") }
        var options = FollowOptions(mode: .poll)
        options.wait = 5
        options.backoff = Backoff.Configuration(initial: .milliseconds(20), maximum: .milliseconds(200))
        options.onRetry = { [retries] error, _ in retries.record(error) }
        writer = ListWriter(baseURL: server, listID: list, options: options, storage: storage, transport: transport)
        let updates = writer.updates
        task = Task { @MainActor [weak self] in
            for await update in updates {
                guard let self else { return }
                binding.apply(update)
                seen.append(update)
            }
        }
    }

    /// Makes `write` in a task of its own, once it is queued (so writes launched one after another queue in order).
    func launch(_ write: ListWrite) async -> Task<Int, any Error> {
        let writer = writer
        let before = await writer.writesMade
        let task = Task { try await writer.perform(write) }
        while await writer.writesMade == before { try? await Task.sleep(for: .milliseconds(2)) }
        return task
    }

    /// The item ids the view shows, section by section.
    var shown: [[String]] { view.shownItems }

    /// Waits until `condition` holds (checked every 10 ms), at most `seconds`.
    @discardableResult
    func wait(seconds: Double = 20, until condition: (WrittenList) -> Bool) async -> Bool {
        await waitFor(seconds: seconds) { condition(self) }
    }

    /// Waits until the view shows `ids`.
    @discardableResult
    func wait(toShow ids: [[String]], seconds: Double = 20) async -> Bool {
        await wait(seconds: seconds) { $0.shown == ids }
    }

    func stop() async {
        await writer.stop()
        task?.cancel()
    }
}
