import ListDeltaStorage
import Logging
import PostgresNIO

/// The PostgreSQL store's ``WriteTurn``: a transaction that holds the list's advisory lock (the one an append, a
/// view's append and a delete take first) on a connection of the pool, kept until the turn ends.
///
/// The one append made through it (``append(seconds:_:)``) runs in that transaction, which then commits: the
/// caller hears of the write once it is durable, as with any append. Ending the turn without one rolls it back.
final class ListTurn: WriteTurn {
    /// An append to run on the turn's connection.
    typealias Work = @Sendable (PostgresConnection) async throws -> AppendFunction.Result

    private enum Command: Sendable {
        case append(Work, Rendezvous<AppendFunction.Result>)
        case end
    }

    /// The list the turn is on.
    let id: String
    /// The list's head when the lock was taken, which no other instance can move while the turn lasts.
    let head: StoredHead?
    private let commands: AsyncStream<Command>.Continuation
    private let task: Task<Void, Never>
    private let ended: @Sendable (ListTurn) -> Void

    /// Takes the lock, waiting at most `seconds` for it (and for the connection).
    /// - Parameter ended: Called once the turn ended, however it did.
    /// - Throws: ``StoreError/unavailable(_:)`` past the deadline, or when the database fails.
    init(id: String, client: PostgresClient, logger: Logger, seconds: Double, ended: @escaping @Sendable (ListTurn) -> Void) throws(StoreError) {
        let (stream, commands) = AsyncStream<Command>.makeStream()
        let locked = Rendezvous<StoredHead?>()
        let task = Task(executorPreference: StoreTaskExecutor.shared) {
            let pending = Rendezvous<Rendezvous<AppendFunction.Result>>()
            do {
                let result: AppendFunction.Result? = try await client.withTransaction(logger: logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(id), 0))", logger: logger)
                    locked.deliver(.success(try await PostgresStore.storedHead(id, on: connection, logger: logger, locking: false)))
                    for await command in stream {
                        guard case .append(let work, let reply) = command else { return nil }
                        pending.deliver(.success(reply))
                        return try await work(connection)
                    }
                    return nil
                }
                // Committed: only now is the append's caller told.
                if let result, case .success(let reply) = pending.delivered { reply.deliver(.success(result)) }
            } catch {
                locked.deliver(.failure(error))
                if case .success(let reply) = pending.delivered { reply.deliver(.failure(error)) }
            }
        }
        self.id = id
        self.commands = commands
        self.task = task
        self.ended = ended
        do {
            head = try BlockingCall.awaitResult(of: locked, seconds: seconds, cancelling: task)
        } catch {
            // A lock taken after the deadline is given back at once.
            commands.finish()
            throw error
        }
    }

    /// Runs `work` in the turn's transaction and commits it, which ends the turn.
    /// - Throws: what `work` or the commit throws, as a ``StoreError``; ``StoreError/unavailable(_:)`` when the
    ///   commit is not acknowledged within `seconds` (whether it committed is then unknown).
    func append(seconds: Double, _ work: @escaping Work) throws(StoreError) -> AppendFunction.Result {
        let reply = Rendezvous<AppendFunction.Result>()
        commands.yield(.append(work, reply))
        commands.finish()
        defer { ended(self) }
        return try BlockingCall.awaitResult(of: reply, seconds: seconds, cancelling: task)
    }

    func end() {
        commands.yield(.end)
        commands.finish()
        ended(self)
    }
}
