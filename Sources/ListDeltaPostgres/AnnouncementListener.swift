import ListDeltaStorage
import Logging
import PostgresNIO

/// Listens for the commits of every instance on one connection of the store's pool, and hands the others' to a
/// handler, in commit order.
///
/// The connection is checked every ``pingSeconds`` (a silent network loses no notification unnoticed); when it
/// breaks or the check fails, the listener announces `interrupted`, and reconnects every second until it listens
/// again, then announces `resumed` (after `LISTEN` took effect, so a re-check that follows misses nothing).
final class AnnouncementListener: Sendable {
    /// Seconds between checks of the listening connection.
    static let pingSeconds = 2.0

    private let task: Task<Void, Never>

    init(store: PostgresStore, handler: @escaping @Sendable (StoreAnnouncement) -> Void) {
        task = Task(executorPreference: StoreTaskExecutor.shared) { await Self.listen(store, handler) }
    }

    func stop() { task.cancel() }

    private static func listen(_ store: PostgresStore, _ handler: @escaping @Sendable (StoreAnnouncement) -> Void) async {
        var listening = false
        while !Task.isCancelled {
            do {
                try await store.client.withConnection { connection in
                    try await connection.listen(on: PostgresSchema.channel) { notifications in
                        store.markReachable(true)
                        listening = true
                        handler(.resumed)
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for try await notification in notifications {
                                    guard let payload = AnnouncementPayload(notification.payload), payload.instance != store.instance else { continue }
                                    switch payload.kind {
                                    case .committed: handler(.committed(list: payload.list, revision: payload.revision, trace: payload.trace))
                                    case .deleted: handler(.deleted(list: payload.list, revision: payload.revision))
                                    case .source: handler(.sourceChanged(list: payload.list))
                                    }
                                }
                                throw StoreError.unavailable("the listening connection closed")
                            }
                            group.addTask {
                                while true {
                                    try await Task.sleep(for: .seconds(pingSeconds))
                                    try await withDeadline(store.configuration.timeoutSeconds) {
                                        try await connection.query("SELECT 1", logger: store.logger)
                                    }
                                }
                            }
                            defer { group.cancelAll() }
                            try await group.next()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                store.logger.warning("not listening for other instances' commits", metadata: ["reason": "\(StoreError(postgres: error))"])
            }
            if listening {
                listening = false
                handler(.interrupted)
            }
            store.markReachable(false)
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// `operation`'s result, or ``StoreError/unavailable(_:)`` after `seconds`.
    private static func withDeadline(_ seconds: Double, _ operation: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw StoreError.unavailable("the listening connection did not answer in \(seconds) s")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }
}
