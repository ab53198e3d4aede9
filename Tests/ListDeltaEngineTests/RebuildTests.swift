import ListDeltaCore
import ListDeltaSQLite
import ListDeltaStorage
import ListDeltaTestSupport
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

    /// A repository over the SQLite store in `directory`, whose document cache holds about one of these documents:
    /// older revisions are not in memory.
    private func repository(in directory: String, documents: [ListDocument]) throws -> ListRepository {
        var configuration = SQLiteStoreConfiguration(directory: directory)
        configuration.durableSync = false
        return try ListRepository(
            store: SQLiteStore(configuration: configuration), limits: DocumentLimits(), cacheBytes: 3 * documents[0].estimatedHeapBytes / 2)
    }

    @Test func olderRevisionsAreWalkedBackFromTheCurrentDocumentAtTheCostOfTheDistance() throws {
        let documents = history(count: 950)
        let directory = try TemporaryDirectory()
        let repository = try repository(in: directory.path, documents: documents)
        try write(documents, to: repository)
        let head = try #require(try repository.head("l"))
        for distance in [1, 10, 100, 900] {
            let before = repository.rebuilds.snapshot
            let rebuilt = try repository.document("l", revision: head.revision - distance, head: head)
            #expect(rebuilt == documents[head.revision - distance - 1], "\(distance) back")
            let after = repository.rebuilds.snapshot
            // Walked back exactly `distance` revisions, never from a checkpoint.
            #expect(after.rebuilds[.backwards, default: 0] == before.rebuilds[.backwards, default: 0] + 1)
            #expect(after.diffs[.backwards, default: 0] == before.diffs[.backwards, default: 0] + distance)
            #expect(after.rebuilds[.checkpoint] == before.rebuilds[.checkpoint])
        }
    }

    @Test func withoutTheCurrentDocumentInMemoryARevisionIsRebuiltFromItsCheckpoint() throws {
        let documents = history(count: 120)
        let directory = try TemporaryDirectory()
        try write(documents, to: repository(in: directory.path, documents: documents))
        // A second repository on the same data: nothing in memory.
        let repository = try repository(in: directory.path, documents: documents)
        let head = try #require(try repository.head("l"))
        let old = try repository.document("l", revision: 60, head: head)
        #expect(old == documents[59])
        #expect(repository.rebuilds.snapshot.rebuilds[.checkpoint] == 1)
        // Once the current document is in memory, the same distance is walked back from it.
        let current = try repository.live("l").document
        #expect(current == documents[119])
        #expect(try repository.document("l", revision: 61, head: head) == documents[60])
        #expect(repository.rebuilds.snapshot.diffs[.backwards] == 59)
    }
}
