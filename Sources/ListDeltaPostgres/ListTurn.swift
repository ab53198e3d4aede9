import Dispatch
import ListDeltaStorage
import PostgresNIO
import Synchronization

/// The PostgreSQL store's ``WriteTurn``: a transaction that holds the list's advisory lock (the one an append, a
/// view's append and a delete take first) on one of the appends' connections (``AppendConnections``), leased until
/// the turn ends. Its owner reads through the pool meanwhile, which the turn takes nothing from.
///
/// The one append made through it (``append(_:)``) runs in that transaction, which then commits: the caller hears
/// of the write once it is durable, as with any append. Ending the turn without one rolls it back.
final class ListTurn: WriteTurn {
    /// The list the turn is on.
    let id: String
    /// The list's head when the lock was taken, which no other instance can move while the turn lasts.
    let head: StoredHead?
    private let connections: AppendConnections
    private let connection: PostgresConnection
    private let seconds: Double
    /// Whether the turn is still open (its append or its end closes it, once).
    private let isOpen = Atomic<Bool>(true)
    private let ended: @Sendable (ListTurn) -> Void

    /// Takes the lock, waiting at most `seconds` for a connection and the lock (`lock_timeout`).
    /// - Parameter ended: Called once the turn ended, however it did.
    /// - Throws: ``StoreError/unavailable(_:)`` past the deadline, or when the database fails.
    init(id: String, connections: AppendConnections, seconds: Double, ended: @escaping @Sendable (ListTurn) -> Void) throws(StoreError) {
        let deadline = DispatchTime.now() + seconds
        let connection = try connections.lease(until: deadline)
        var reusable = false
        do throws(StoreError) {
            _ = try connections.run("BEGIN", on: connection, until: deadline, reusable: &reusable)
            _ = try connections.run("SELECT pg_advisory_xact_lock(hashtextextended(\(id), 0))", on: connection, until: deadline, reusable: &reusable)
            let rows = try connections.run(PostgresStore.headQuery(id), on: connection, until: deadline, reusable: &reusable)
            do {
                head = try rows.first.map(PostgresStore.decodeHead)
            } catch {
                throw StoreError(postgres: error)
            }
        } catch {
            // Closed, not given back: its transaction (and any lock it took) ends with it.
            connections.giveBack(connection, reusable: false)
            throw error
        }
        self.id = id
        self.connections = connections
        self.connection = connection
        self.seconds = seconds
        self.ended = ended
    }

    /// Runs `statement` in the turn's transaction and commits it, which ends the turn.
    /// - Throws: what the call or the commit throws; ``StoreError/unavailable(_:)`` when either is not answered
    ///   within the store's deadline (whether it committed is then unknown).
    func append(_ statement: AppendFunction.Statement) throws(StoreError) -> AppendFunction.Result {
        guard isOpen.exchange(false, ordering: .acquiringAndReleasing) else { throw .invalidWrite("the turn on \(id) has ended") }
        defer { ended(self) }
        let deadline = DispatchTime.now() + seconds
        var reusable = false
        do throws(StoreError) {
            let result = try statement.result(of: connections.run(statement.query, on: connection, until: deadline, reusable: &reusable))
            _ = try connections.run("COMMIT", on: connection, until: deadline, reusable: &reusable)
            connections.giveBack(connection, reusable: reusable)
            return result
        } catch {
            connections.giveBack(connection, reusable: false)
            throw error
        }
    }

    func end() {
        guard isOpen.exchange(false, ordering: .acquiringAndReleasing) else { return }
        defer { ended(self) }
        var reusable = false
        _ = try? connections.run("ROLLBACK", on: connection, until: DispatchTime.now() + seconds, reusable: &reusable)
        connections.giveBack(connection, reusable: reusable)
    }
}
