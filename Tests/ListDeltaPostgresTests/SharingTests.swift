import ListDeltaCoreTestSupport
import ListDeltaPostgres
import ListDeltaStorage
import ListDeltaStoreTestSupport
import Logging
import Synchronization
import Testing

/// Two stores on one database, as two instances would have: racing writers, announcements, write turns. Nothing
/// here waits for a time: a test waits for what it expects to happen (`eventually`), such as another instance's
/// call waiting for a list's lock in the database (``PostgresStore/sessionsWaiting(forTheLockOf:)``).
@Suite(.needsTestDatabase)
struct SharingTests {
    @Test func ofRacingWritersExpectingOneRevisionExactlyOneCommits() async throws {
        try await withTwoInstances { first, second in
            let id = uniqueID("race")
            _ = try first.append(.create(id))
            for round in 1...5 {
                let outcomes = Mutex<[Result<ListHead, StoreError>]>([])
                concurrentlyOnOwnThreads(8) { index in
                    let store = index % 2 == 0 ? first : second
                    let outcome: Result<ListHead, StoreError>
                    do throws(StoreError) {
                        outcome = .success(try store.append(.update(id, expected: round)))
                    } catch {
                        outcome = .failure(error)
                    }
                    outcomes.withLock { $0.append(outcome) }
                }
                let all = outcomes.withLock { $0 }
                let winners = all.compactMap { try? $0.get() }
                #expect(winners.count == 1)
                #expect(winners.first?.revision == round + 1)
                for case .failure(let error) in all { #expect(error == .conflict(current: round + 1)) }
            }
            #expect(try second.head(id)?.revision == 6)
            #expect(try second.chain(id, upTo: 6)?.map(\.revision) == [1, 2, 3, 4, 5, 6])
        }
    }

    @Test func anAppendDecidedFromAHeadAnotherInstanceMovedIsDecidedAgain() async throws {
        try await withTwoInstances { first, second in
            let id = uniqueID("stale")
            _ = try first.append(.create(id))
            // The second instance last saw revision 1; the first then moves the head to 3, with a checkpoint.
            _ = try second.head(id)
            _ = try first.append(.update(id, expected: 1))
            _ = try first.append(.update(id, expected: 2, checkpoint: true))
            // A writer that heard of revision 3 writes through the second instance: its stale head is refused by
            // the database, and the write is decided again on the head the database returned.
            let head = try second.append(.update(id, expected: 3))
            #expect(head.revision == 4)
            #expect(head.checkpointBytes == 32 && head.deltaBytesSinceCheckpoint == 8)
            #expect(try first.head(id) == head)
            // A writer still expecting revision 3 through the first instance (whose own head says 3) conflicts.
            #expect(throws: StoreError.conflict(current: 4)) { try first.append(.update(id, expected: 3)) }
            // Recreated after a delete through the other instance: numbering goes on from the tombstone.
            _ = try second.delete(id, expectedRevision: 4)
            #expect(try first.append(.create(id)).revision == 5)
            #expect(try second.chain(id, upTo: 5)?.map(\.revision) == [5])
        }
    }

    @Test func anotherInstancesCommitsAreAnnouncedInOrderAndOwnOnesAreNot() async throws {
        try await withTwoInstances { writer, reader in
            let heard = Mutex<[StoreAnnouncement]>([])
            let heardByWriter = Mutex<[StoreAnnouncement]>([])
            reader.startAnnouncements { announcement in heard.withLock { $0.append(announcement) } }
            writer.startAnnouncements { announcement in heardByWriter.withLock { $0.append(announcement) } }
            #expect(eventually(10) { heard.withLock { $0.contains(.resumed) } && heardByWriter.withLock { $0.contains(.resumed) } })
            let id = uniqueID("announce")
            _ = try writer.append(.create(id))
            _ = try writer.append(.update(id, expected: 1))
            _ = try writer.delete(id, expectedRevision: nil)
            let expected: [StoreAnnouncement] = [
                .committed(list: id, revision: 1), .committed(list: id, revision: 2), .deleted(list: id, revision: 2),
            ]
            // Other tests write to the same database meanwhile: only this list's announcements count.
            func about(_ announcements: [StoreAnnouncement]) -> [StoreAnnouncement] {
                announcements.filter { $0 == .committed(list: id, revision: 1) || $0 == .committed(list: id, revision: 2) || $0 == .deleted(list: id, revision: 2) }
            }
            #expect(eventually(10) { about(heard.withLock { $0 }) == expected })
            // The writer's own commits are not announced back to it: a commit of the reader's, made after them, is
            // (announcements arrive in commit order, so once it is heard the writer's would have been).
            let marker = uniqueID("marker")
            _ = try reader.append(.create(marker))
            #expect(eventually(10) { heardByWriter.withLock { $0.contains(.committed(list: marker, revision: 1)) } })
            #expect(about(heardByWriter.withLock { $0 }).isEmpty)
            #expect(heardByWriter.withLock { $0.first } == .resumed)
        }
    }

    @Test func anotherInstancesAppendWaitsForATurnAndThenSeesWhatItCommitted() async throws {
        try await withTwoInstances { holder, other in
            let id = uniqueID("turn")
            _ = try holder.append(.create(id))
            let turn = try #require(try holder.takeWriteTurn(id))
            let theirs = Mutex<Result<ListHead, StoreError>?>(nil)
            runOnThread {
                let outcome = Result { () throws(StoreError) in try other.append(.update(id, expected: 1)) }
                theirs.withLock { $0 = outcome }
            }
            // The other instance's append waits in the database for the turn's lock.
            #expect(eventually(10) { (try? holder.sessionsWaiting(forTheLockOf: id)) == 1 })
            #expect(theirs.withLock { $0 } == nil)
            // The turn's append commits on the head read under the lock, and ends the turn.
            let mine = try holder.append(.update(id, expected: 1))
            #expect(mine.revision == 2)
            #expect(eventually(10) { theirs.withLock { $0 } != nil })
            #expect(theirs.withLock { $0 } == .failure(.conflict(current: 2)))
            #expect(try other.head(id)?.revision == 2)
            #expect(try other.chain(id, upTo: 2)?.map(\.revision) == [1, 2])
            // Ending it again changes nothing, and appends go through the pool again.
            turn.end()
            #expect(try other.append(.update(id, expected: 2)).revision == 3)
        }
    }

    @Test func aTurnEndedWithoutAnAppendCommitsNothingAndLetsOthersWrite() async throws {
        try await withTwoInstances { holder, other in
            let id = uniqueID("turn-end")
            _ = try holder.append(.create(id))
            let turn = try #require(try holder.takeWriteTurn(id))
            turn.end()
            #expect(try other.append(.update(id, expected: 1)).revision == 2)
            // The holder's next append is an ordinary one, decided again on the head the other instance moved.
            #expect(try holder.append(.update(id, expected: 2)).revision == 3)
            #expect(try other.chain(id, upTo: 3)?.map(\.revision) == [1, 2, 3])
        }
    }

    @Test func aTurnWaitsForAnotherInstancesTurnOnTheSameList() async throws {
        try await withTwoInstances { first, second in
            let id = uniqueID("turns")
            _ = try first.append(.create(id))
            let held = try #require(try first.takeWriteTurn(id))
            let theirs = Mutex<String?>(nil)
            runOnThread {
                do throws(StoreError) {
                    guard let turn = try second.takeWriteTurn(id) else {
                        theirs.withLock { $0 = "took no turn" }
                        return
                    }
                    // The second turn's head is the one the first turn committed.
                    let revision = try second.append(.update(id, expected: 2)).revision
                    turn.end()
                    theirs.withLock { $0 = "committed \(revision)" }
                } catch {
                    theirs.withLock { $0 = "failed: \(error)" }
                }
            }
            // The second instance's turn waits in the database for the first one's lock.
            #expect(eventually(10) { (try? first.sessionsWaiting(forTheLockOf: id)) == 1 })
            #expect(theirs.withLock { $0 } == nil)
            _ = try first.append(.update(id, expected: 1))
            held.end()
            #expect(eventually(10) { theirs.withLock { $0 } != nil })
            #expect(theirs.withLock { $0 } == "committed 3")
        }
    }

    @Test func aListHeldPastTheDeadlineIsBusyNotUnreachable() async throws {
        try await onOwnThread {
            let holder = try openPostgresStore()
            let other = try openPostgresStore(timeoutSeconds: 3)
            defer {
                holder.close()
                other.close()
            }
            let id = uniqueID("busy")
            _ = try holder.append(.create(id))
            // The other instance's connection is open before the lock is held: its deadline is all for the wait.
            _ = try other.append(.create(uniqueID("busy-other")))
            let turn = try #require(try holder.takeWriteTurn(id))
            // The other instance's append and turn wait for the lock as long as its deadline, on the server too: busy
            // (the server's lock_timeout, four fifths of the deadline) and not unavailable (the client's deadline)
            // says the server gave up first.
            #expect(throws: StoreError.busy("another writer held the list past the deadline")) { try other.append(.update(id, expected: 1)) }
            #expect(throws: StoreError.busy("another writer held the list past the deadline")) { try other.takeWriteTurn(id) }
            // Nothing was written, and the database still counts as reachable.
            #expect(other.isReachable)
            turn.end()
            #expect(try other.head(id)?.revision == 1)
            #expect(try other.append(.update(id, expected: 1)).revision == 2)
        }
    }

    @Test func anUnreachableDatabaseFailsAsUnavailable() async throws {
        try await onOwnThread {
            // A port nothing listens on: the store refuses to open within its start-up wait, saying why.
            var configuration = try PostgresStoreConfiguration(url: "postgres://nobody:secret@127.0.0.1:9/nothing?sslmode=disable")
            configuration.timeoutSeconds = 1
            #expect(performing: {
                _ = try PostgresStore(configuration: configuration, logger: .init(label: "test"), startupSeconds: 0)
            }, throws: { error in
                guard case .unavailable = error as? StoreError else { return false }
                return true
            })
        }
    }

    /// Runs `body` on a thread of its own with two stores on the test database, as two instances would have.
    private func withTwoInstances(_ body: @escaping @Sendable (PostgresStore, PostgresStore) throws -> Void) async throws {
        try await onOwnThread {
            let first = try openPostgresStore()
            let second = try openPostgresStore()
            defer {
                first.close()
                second.close()
            }
            try body(first, second)
        }
    }
}
