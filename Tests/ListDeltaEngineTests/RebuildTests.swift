import ListDeltaCore
import ListDeltaCoreTestSupport
import ListDeltaSQLite
import ListDeltaStorage
import Testing

@testable import ListDeltaEngine

@Suite struct RebuildTests {
    /// A 300-item list and `count - 1` edits of it, each revision's document.
    private func history(count: Int) -> [ListDocument] {
        var generator = SplitMix64(seed: 5)
        var items = (0..<300).map { ListItem(id: "i\($0)", model: ["v": 0]) }
        var documents: [ListDocument] = []
        var next = 300
        for revision in 1...count {
            if revision > 1 {
                // A few edits of every kind, like a busy list.
                items[Int.random(in: items.indices, using: &generator)].model = ["v": .number(JSONNumber(revision))]
                let moved = items.remove(at: Int.random(in: items.indices, using: &generator))
                items.insert(moved, at: Int.random(in: 0...items.count, using: &generator))
                items.remove(at: Int.random(in: items.indices, using: &generator))
                next += 1
                items.insert(ListItem(id: "i\(next)", model: ["v": 1]), at: Int.random(in: 0...items.count, using: &generator))
            }
            documents.append(ListDocument(id: "l", kind: .array, revision: revision, sections: [ListSection(id: "main", items: items)]))
        }
        return documents
    }

    /// A 100-item list rewritten wholesale `count - 1` times (every item new each revision).
    private func rewrites(count: Int) -> [ListDocument] {
        (1...count).map { revision in
            let items = (0..<100).map { ListItem(id: "r\(revision)-\($0)", model: ["text": .string("item \($0) of revision \(revision)")]) }
            return ListDocument(id: "l", kind: .array, revision: revision, sections: [ListSection(id: "main", items: items)])
        }
    }

    /// Writes `documents` as successive revisions through the repository.
    private func write(_ documents: [ListDocument], to repository: ListRepository) throws {
        for document in documents {
            let outcome = try repository.write("l", origin: document.revision == 1 ? .put : .patch, preconditions: WritePreconditions(), onCommit: { _ in }) { _, number in
                var written = document
                written.revision = number
                return written
            }
            #expect(outcome.document.revision == document.revision)
        }
    }

    /// The SQLite store in `directory`.
    private func store(in directory: String) throws -> SQLiteStore {
        var configuration = SQLiteStoreConfiguration(directory: directory)
        configuration.durableSync = false
        return try SQLiteStore(configuration: configuration)
    }

    /// A repository over `store` whose document cache holds about one of these documents: older revisions are not in
    /// memory.
    private func repository(over store: SQLiteStore, documents: [ListDocument]) throws -> ListRepository {
        try ListRepository(store: store, limits: DocumentLimits(), cacheBytes: 3 * documents[0].estimatedHeapBytes / 2)
    }

    @Test func theCheaperWayIsChosenFromTheStoredBytes() {
        // Back through small undo diffs beats a large snapshot; a missing undo diff leaves only forwards.
        #expect(RebuildPath.cheaper(for: RebuildCosts(forwardBytes: 40_000, forwardRows: 3, backwardBytes: 9_000, backwardRows: 90)) == .backwards)
        #expect(RebuildPath.cheaper(for: RebuildCosts(forwardBytes: 12_000, forwardRows: 2, backwardBytes: 50_000, backwardRows: 5)) == .forwards)
        #expect(RebuildPath.cheaper(for: RebuildCosts(forwardBytes: 1_000_000, forwardRows: 1, backwardBytes: nil, backwardRows: 1)) == .forwards)
        // Each row costs beside its bytes: a thousand empty diffs are not free.
        #expect(RebuildPath.cheaper(for: RebuildCosts(forwardBytes: 100_000, forwardRows: 1, backwardBytes: 0, backwardRows: 1_000)) == .forwards)
    }

    @Test func smallEditsAreWalkedBackFromTheCurrentDocumentWhileThatIsCheaper() throws {
        let documents = history(count: 950)
        let directory = try TemporaryDirectory()
        let store = try store(in: directory.path)
        let repository = try repository(over: store, documents: documents)
        try write(documents, to: repository)
        let head = try #require(try repository.head("l"))
        var ways: Set<RebuildStatistics.Start> = []
        for distance in [1, 10, 100, 900] {
            let costs = try #require(try store.rebuildCosts("l", revision: head.revision - distance, from: head.revision))
            let before = repository.rebuilds.snapshot
            let rebuilt = try repository.document("l", revision: head.revision - distance, head: head)
            #expect(rebuilt == documents[head.revision - distance - 1], "\(distance) back")
            let after = repository.rebuilds.snapshot
            if RebuildPath.cheaper(for: costs) == .backwards {
                // Walked back exactly `distance` revisions, never from a checkpoint.
                #expect(after.rebuilds[.backwards, default: 0] == before.rebuilds[.backwards, default: 0] + 1)
                #expect(after.diffs[.backwards, default: 0] == before.diffs[.backwards, default: 0] + distance)
                ways.insert(.backwards)
            } else {
                #expect(after.rebuilds[.backwards] == before.rebuilds[.backwards], "\(distance) back: forwards is cheaper")
                #expect(after.diffs[.checkpoint, default: 0] + after.diffs[.memory, default: 0] < distance)
                ways.insert(.checkpoint)
            }
        }
        // A few items per revision: the walk back is the cheaper way for a while, then the checkpoint.
        #expect(ways == [.backwards, .checkpoint])
    }

    @Test func aListRewrittenWholesaleIsRebuiltFromItsCheckpointNotWalkedBack() throws {
        let documents = rewrites(count: 200)
        let directory = try TemporaryDirectory()
        let store = try store(in: directory.path)
        try write(documents, to: repository(over: store, documents: documents))
        // Read after a restart: nothing in memory but the current document once it is read.
        let repository = try repository(over: store, documents: documents)
        let current = try repository.live("l")
        #expect(current.document == documents[199])
        let before = repository.rebuilds.snapshot
        for revision in [198, 150, 3] {
            let costs = try #require(try store.rebuildCosts("l", revision: revision, from: 200))
            #expect(RebuildPath.cheaper(for: costs) == .forwards, "revision \(revision): \(costs)")
            #expect(try repository.document("l", revision: revision, head: current.head) == documents[revision - 1])
        }
        let after = repository.rebuilds.snapshot
        #expect(after.rebuilds[.backwards] == nil)
        // Each from a checkpoint at most a couple of revisions below it.
        #expect(after.rebuilds[.checkpoint, default: 0] - before.rebuilds[.checkpoint, default: 0] == 3)
        #expect(after.diffs[.checkpoint, default: 0] - before.diffs[.checkpoint, default: 0] <= 3 * 2)
    }

    @Test func withoutTheCurrentDocumentInMemoryARevisionIsRebuiltFromItsCheckpoint() throws {
        let documents = history(count: 120)
        let directory = try TemporaryDirectory()
        let store = try store(in: directory.path)
        try write(documents, to: repository(over: store, documents: documents))
        // A second repository on the same data: nothing in memory.
        let repository = try repository(over: store, documents: documents)
        let head = try #require(try repository.head("l"))
        let old = try repository.document("l", revision: 60, head: head)
        #expect(old == documents[59])
        #expect(repository.rebuilds.snapshot.rebuilds[.checkpoint] == 1)
        // Once the current document is in memory, one revision back is walked back from it.
        let current = try repository.live("l").document
        #expect(current == documents[119])
        #expect(try repository.document("l", revision: 119, head: head) == documents[118])
        #expect(repository.rebuilds.snapshot.diffs[.backwards] == 1)
    }
}
