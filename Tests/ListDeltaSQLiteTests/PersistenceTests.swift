import Foundation
import ListDeltaCoreTestSupport
import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing
@testable import ListDeltaSQLite

/// What a SQLite store keeps in its directory: everything is there again when it is opened again, and for a second
/// store on the same directory.
@Suite struct PersistenceTests {
    @Test func reopenedStoreSeesEverything() throws {
        try withTemporaryDirectory { path in
            var configuration = SQLiteStoreConfiguration(directory: path + "/nested/data")
            configuration.retention = 5
            let (head, chains, lists) = try {
                let store = try SQLiteStore(configuration: configuration)
                var head = try store.append(.create("a"))
                for expected in 1..<9 {
                    head = try store.append(.update("a", expected: expected, checkpoint: expected == 4))
                }
                _ = try store.append(.create("b"))
                _ = try store.append(.create("c"))
                _ = try store.delete("c", expectedRevision: 1)
                let chains = try (head.oldestRevision...head.revision).map { try store.chain("a", upTo: $0) }
                return (head, chains, try store.lists(after: nil, limit: 10))
            }()
            #expect(FileManager.default.fileExists(atPath: path + "/nested/data/listdelta.sqlite"))

            let reopened = try SQLiteStore(configuration: configuration)
            #expect(try reopened.head("a") == head)
            #expect(try (head.oldestRevision...head.revision).map { try reopened.chain("a", upTo: $0) } == chains)
            #expect(try reopened.lists(after: nil, limit: 10) == lists)
            #expect(try reopened.head("c")?.isDeleted == true)
            #expect(try reopened.append(.create("c")).revision == 2)
            #expect(try reopened.append(.update("a", expected: 9)).revision == 10)
        }
    }

    @Test func committedRevisionIsVisibleToAnIndependentConnection() throws {
        try withSQLiteStore { writer, configuration in
            var durable = configuration
            durable.durableSync = true
            let reader = try SQLiteStore(configuration: durable)
            #expect(try reader.synchronousSetting() == 2)
            _ = try writer.append(.create("a"))
            #expect(try reader.head("a")?.revision == 1)
            let head = try writer.append(.update("a", expected: 1))
            #expect(try reader.head("a") == head)
            #expect(try reader.chain("a", upTo: 2)?.last?.delta == blob(2, revision: 2, count: 8))
            // Writes from the second store are seen by the first one, and conflicts are detected across them.
            _ = try reader.append(.update("a", expected: 2))
            #expect(throws: StoreError.conflict(current: 3)) { try writer.append(.update("a", expected: 2)) }
        }
    }

    @Test func sizeAndCheckpoint() throws {
        try withSQLiteStore { store, configuration in
            let empty = try store.databaseSizeBytes()
            #expect(empty > 0)
            _ = try store.append(.create("a", snapshotSize: 100_000))
            let grown = try store.databaseSizeBytes()
            #expect(grown >= empty + 100_000)
            try store.checkpointWAL()
            let wal = try FileManager.default.attributesOfItem(atPath: configuration.databasePath + "-wal")
            #expect((wal[.size] as? NSNumber)?.intValue == 0)
            #expect(try store.databaseSizeBytes() >= 100_000)
        }
    }

    @Test func nonDurableSyncOpens() throws {
        try withTemporaryDirectory { path in
            var configuration = SQLiteStoreConfiguration(directory: path)
            configuration.durableSync = false
            let store = try SQLiteStore(configuration: configuration)
            #expect(try store.append(.create("a")).revision == 1)
            #expect(try store.synchronousSetting() == 1)
        }
    }

    @Test func viewsSurviveReopening() throws {
        try withTemporaryDirectory { path in
            let configuration = SQLiteStoreConfiguration(directory: path + "/data")
            do {
                let store = try SQLiteStore(configuration: configuration)
                _ = try store.attachView(list: "v", base: "b", definition: "{\"q\":1}", maximumViews: 10)
                _ = try store.attachView(list: "v", base: "b", definition: "{\"q\":2}", maximumViews: 10)
                _ = try store.attachView(list: "w", base: "b", definition: "{}", maximumViews: 10)
                _ = try store.append(RevisionWrite.create("v").forView(generation: 2, step: 8))
            }
            let reopened = try SQLiteStore(configuration: configuration)
            #expect(try reopened.allViews() == [
                StoredView(list: "v", base: "b", definition: "{\"q\":2}", generation: 2, baseStep: 8),
                StoredView(list: "w", base: "b", definition: "{}", generation: 1, baseStep: -1),
            ])
            #expect(storeError { _ = try reopened.append(RevisionWrite.update("v", expected: 1).forView(generation: 2, step: 8)) } != nil)
            #expect(try reopened.append(RevisionWrite.update("v", expected: 1).forView(generation: 2, step: 10)).revision == 2)
        }
    }

    @Test func sourcesSurviveReopening() throws {
        try withSQLiteStore { store, configuration in
            _ = try store.attachSource(
                list: "kept", settings: "{\"url\":\"u\"}", state: "{}", owner: "a", nowMilliseconds: 5, leaseMilliseconds: 1, maximumSources: 10)
            let reopened = try SQLiteStore(configuration: configuration)
            #expect(try reopened.source("kept")?.settings == "{\"url\":\"u\"}")
            #expect(try reopened.sourceCounts() == SourceCounts(attached: 1, failing: 0))
        }
    }
}
