import ListDeltaCore
import ListDeltaCoreTestSupport
import ListDeltaSQLite
import ListDeltaStorage
import Synchronization
import Testing

@testable import ListDeltaEngine

/// An unconditional write that keeps losing its race to another instance takes the store's turn on the list and
/// commits; a conditional one is refused at once.
@Suite struct WriteTurnTests {
    /// A store several "instances" share: it forwards to one SQLite store and says it is shared, so that its
    /// repositories treat a refused append as a lost race.
    private class Shared: RevisionStore, @unchecked Sendable {
        let inner: SQLiteStore
        init(_ inner: SQLiteStore) { self.inner = inner }
        var retention: Int { inner.retention }
        var isShared: Bool { true }
        var databaseSystem: String { "sqlite" }
        func head(_ id: String) throws(StoreError) -> ListHead? { try inner.head(id) }
        func chain(_ id: String, upTo revision: Int) throws(StoreError) -> [StoredRevision]? { try inner.chain(id, upTo: revision) }
        func undoChain(_ id: String, from start: Int, downTo target: Int) throws(StoreError) -> [StoredUndo]? {
            try inner.undoChain(id, from: start, downTo: target)
        }
        func rebuildCosts(_ id: String, revision: Int, from newer: Int) throws(StoreError) -> RebuildCosts? {
            try inner.rebuildCosts(id, revision: revision, from: newer)
        }
        func history(_ id: String, before: Int?, limit: Int) throws(StoreError) -> HistoryPage? { try inner.history(id, before: before, limit: limit) }
        func lists(after: String?, limit: Int) throws(StoreError) -> [ListHead] { try inner.lists(after: after, limit: limit) }
        func append(_ write: RevisionWrite) throws(StoreError) -> ListHead { try inner.append(write) }
        func delete(_ id: String, expectedRevision: Int?) throws(StoreError) -> ListHead? { try inner.delete(id, expectedRevision: expectedRevision) }
        func idempotentAnswer(_ listID: String, key: String) throws(StoreError) -> IdempotentAnswer? { try inner.idempotentAnswer(listID, key: key) }
        func keep(_ answer: AnswerToKeep, for listID: String) throws(StoreError) { try inner.keep(answer, for: listID) }
        func forgetAnswers(keptBefore milliseconds: Int64, limit: Int) throws(StoreError) -> Int {
            try inner.forgetAnswers(keptBefore: milliseconds, limit: limit)
        }
        func takeWriteTurn(_ id: String) throws(StoreError) -> (any WriteTurn)? { nil }
    }

    /// The shared store as seen by an instance that always loses: before each of its appends made outside a turn,
    /// `rival` commits a revision of the same list through another instance.
    private final class Contested: Shared, @unchecked Sendable {
        private final class Turn: WriteTurn {
            let ended: @Sendable () -> Void
            init(ended: @escaping @Sendable () -> Void) { self.ended = ended }
            func end() { ended() }
        }

        let rival = Mutex<(@Sendable () -> Void)?>(nil)
        let held = Mutex<Bool>(false)
        let turnsTaken = Atomic<Int>(0)

        override func append(_ write: RevisionWrite) throws(StoreError) -> ListHead {
            let inTurn = held.withLock { held in
                defer { held = false }
                return held
            }
            if !inTurn, let rival = rival.withLock({ $0 }) { rival() }
            return try inner.append(write)
        }

        override func takeWriteTurn(_ id: String) throws(StoreError) -> (any WriteTurn)? {
            turnsTaken.add(1, ordering: .relaxed)
            held.withLock { $0 = true }
            return Turn { [weak self] in self?.held.withLock { $0 = false } }
        }
    }

    /// One SQLite store shared by two repositories: `winner`, and `loser`, which always loses its races.
    private struct Race {
        let directory: TemporaryDirectory
        let sqlite: SQLiteStore
        let contested: Contested
        let loser: ListRepository
        let winner: ListRepository

        init() throws {
            directory = try TemporaryDirectory()
            var configuration = SQLiteStoreConfiguration(directory: directory.path)
            configuration.durableSync = false
            sqlite = try SQLiteStore(configuration: configuration)
            contested = Contested(sqlite)
            loser = try ListRepository(store: contested, limits: DocumentLimits(), cacheBytes: 1 << 20)
            winner = try ListRepository(store: Shared(sqlite), limits: DocumentLimits(), cacheBytes: 1 << 20)
        }
    }

    private func document(_ tag: String) -> ListDocument {
        ListDocument(id: "l", kind: .array, revision: 0, sections: [ListSection(id: "main", items: [ListItem(id: tag, model: ["tag": .string(tag)])])])
    }

    private func put(_ tag: String, on repository: ListRepository, preconditions: WritePreconditions = WritePreconditions()) throws -> WriteOutcome {
        let written = document(tag)
        return try repository.write("l", origin: .put, preconditions: preconditions, onCommit: { _ in }) { _, number in
            var next = written
            next.revision = number
            return next
        }
    }

    @Test func anUnconditionalWriteThatKeepsLosingTakesTheTurnAndCommits() throws {
        let race = try Race()
        let (sqlite, contested, loser, winner) = (race.sqlite, race.contested, race.loser, race.winner)
        _ = try put("first", on: winner)
        let rivalWrites = Atomic<Int>(0)
        contested.rival.withLock {
            $0 = {
                let count = rivalWrites.add(1, ordering: .relaxed).newValue
                _ = try? self.put("rival\(count)", on: winner)
            }
        }

        let outcome = try put("mine", on: loser)
        #expect(outcome.changed)
        #expect(outcome.document.sections[0].items.map(\.id) == ["mine"])
        #expect(rivalWrites.load(ordering: .relaxed) == ListRepository.racesBeforeTurn)
        #expect(contested.turnsTaken.load(ordering: .relaxed) == 1)
        // Committed on top of the rivals' revisions, and what both instances read back.
        #expect(outcome.document.revision == 1 + ListRepository.racesBeforeTurn + 1)
        #expect(try sqlite.head("l")?.revision == outcome.document.revision)
        let reader = try ListRepository(store: Shared(sqlite), limits: DocumentLimits(), cacheBytes: 1 << 20)
        let head = try #require(try reader.head("l"))
        #expect(try reader.document("l", revision: head.revision, head: head).sections[0].items.map(\.id) == ["mine"])
        // The diff it reports leads from the last rival's revision to its own.
        #expect(outcome.previous.sections[0].items.map(\.id) == ["rival\(ListRepository.racesBeforeTurn)"])
    }

    @Test func aConditionalWriteThatLosesItsRaceIsRefusedWithoutATurn() throws {
        let race = try Race()
        let (sqlite, contested, loser, winner) = (race.sqlite, race.contested, race.loser, race.winner)
        _ = try put("first", on: winner)
        contested.rival.withLock { $0 = { _ = try? self.put("rival", on: winner) } }

        #expect {
            try put("mine", on: loser, preconditions: WritePreconditions(ifMatch: [1]))
        } throws: { error in
            guard let failure = error as? WriteFailure<Never>, case .engine(.preconditionFailed(let current, _)) = failure else { return false }
            return current == 2
        }
        #expect(contested.turnsTaken.load(ordering: .relaxed) == 0)
        #expect(try sqlite.head("l")?.revision == 2)
    }
}
