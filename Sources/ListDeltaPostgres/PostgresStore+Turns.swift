public import ListDeltaStorage
import PostgresNIO
import Synchronization

extension PostgresStore {
    /// Takes the list's advisory lock in a transaction of its own, held until the turn's append commits or the
    /// turn ends (see ``ListTurn``).
    public func takeWriteTurn(_ id: String) throws(StoreError) -> (any WriteTurn)? {
        // A failure is not taken as an unreachable database: most likely another instance's turn held the lock
        // past the deadline (the next call through the pool says whether the database answers).
        let turn = try ListTurn(id: id, connections: appendConnections, seconds: configuration.timeoutSeconds) { [weak self] turn in
            self?.turns.withLock { turns in
                if turns[turn.id] === turn { turns[turn.id] = nil }
            }
        }
        turns.withLock { $0[id] = turn }
        if let head = turn.head { knownHeads.remember(head) } else { knownHeads.forget(id) }
        return turn
    }

    /// Commits `write` in `turn`'s transaction, on the head the turn read under the lock, which cannot have moved.
    func append(_ write: RevisionWrite, in turn: ListTurn) throws(StoreError) -> ListHead {
        let base = turn.head
        let next: StoredHead
        do {
            next = try StoredHead.appending(write, to: base, retention: configuration.retention)
        } catch {
            turn.end()
            throw error
        }
        let announcement = AnnouncementPayload(instance: instance, kind: .committed, revision: next.head.revision, list: write.listID, trace: write.trace).text
        let result: AppendFunction.Result
        do {
            result = try turn.append(AppendFunction.statement(write, next: next, base: base, announcement: announcement))
        } catch {
            knownHeads.forget(write.listID)
            if case .unavailable = error { markReachable(false) }
            throw error
        }
        switch result {
        case .applied:
            break
        case .headMoved:
            knownHeads.forget(write.listID)
            throw .database("the list's head moved while this instance held its lock")
        case .superseded(let refusal):
            throw refusal
        }
        knownHeads.remember(next)
        return next.head
    }

    /// The turn this instance holds on `id`, if any.
    func heldTurn(_ id: String) -> ListTurn? {
        turns.withLock { $0[id] }
    }
}
