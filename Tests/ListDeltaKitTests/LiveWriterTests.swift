import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Testing
@testable import ListDeltaKit

/// The writer against the real service in this process: optimistic writes, lost answers, moved indexes, conflicts,
/// a restart offline, and several writers at once; a simulated UIKit view checks every batch.
@MainActor
@Suite(.serialized) struct LiveWriterTests {
    static let start: JSONValue = ["sections": [
        ["id": "todo", "items": [["id": "a", "model": "A"], ["id": "b", "model": "B"], ["id": "c", "model": "C"]]],
        ["id": "done", "items": [["id": "d", "model": "D"]]],
    ]]

    static func ids(_ document: ListDocument?) -> [[String]] { document?.sections.map { $0.items.map(\.id) } ?? [] }

    /// The view ends on the server's document, made only of batches after the first.
    func expectConverged(_ list: WrittenList, on server: LiveServer, _ id: String) async throws {
        let served = try await server.document(id)
        #expect(await list.wait { $0.binding.dataSource.document == served }, "the view shows revision \(served.revision)")
        #expect(await list.writer.pendingWrites.isEmpty)
        #expect(list.binding.reloads == 1, "only the first document is a reload")
        #expect(list.view.violations.isEmpty)
    }

    @Test func writesMadeOfflineShowAtOnceAndLandInOrderOnceOnline() async throws {
        let server = try LiveServer()
        try await server.put("offline", Self.start)
        let list = WrittenList(server.baseURL, "offline")
        await list.writer.start()
        #expect(await list.wait(toShow: [["a", "b", "c"], ["d"]]))
        list.transport.offline = true
        let writer = list.writer
        var writes: [Task<Int, any Error>] = []
        for write: ListWrite in [.insert(ListItem(id: "x", model: "X"), at: .after("a")), .update(id: "b", changes: ItemChanges(model: "B2")),
                                 .move(id: "c", to: .first(in: "done")), .remove(id: "d")] {
            writes.append(await list.launch(write))
        }
        // Shown at once, as batches, while nothing can reach the server.
        #expect(await list.wait(toShow: [["a", "x", "b"], ["c"]]))
        #expect(await writer.pendingWrites.map(\.write.kind) == ["insert", "update", "move", "remove"])
        #expect(list.binding.dataSource.document.sections[0].items[2].model == "B2")
        #expect(await list.wait { !$0.retries.all.isEmpty }, "the writer met the outage")
        list.transport.offline = false
        var made: [Int] = []
        for write in writes { made.append(try await write.value) }
        #expect(made == [2, 3, 4, 5], "one revision each, in the order they were made")
        #expect(Self.ids(try await server.document("offline")) == [["a", "x", "b"], ["c"]])
        try await expectConverged(list, on: server, "offline")
        await list.stop()
    }

    @Test func aWriteWhoseAnswerWasLostIsSentAgainWithItsKeyAndAppliedOnce() async throws {
        let server = try LiveServer()
        try await server.put("lost", Self.start)
        let list = WrittenList(server.baseURL, "lost")
        await list.writer.start()
        #expect(await list.wait(toShow: [["a", "b", "c"], ["d"]]))
        list.transport.dropAnswers(2)
        let revision = try await list.writer.insert(ListItem(id: "x"), at: .last(in: "todo"))
        #expect(revision == 2)
        let sent = list.transport.sent
        #expect(sent.count == 3 && Set(sent.map(\.key)).count == 1 && Set(sent.map(\.body)).count == 1, "\(sent)")
        #expect(Self.ids(try await server.document("lost")) == [["a", "b", "c", "x"], ["d"]])
        #expect(try await server.document("lost").revision == 2, "applied once")
        try await expectConverged(list, on: server, "lost")
        await list.stop()
    }

    @Test func aWriteBuiltOnIndexesThatMovedIsBuiltAgainAndLandsOnItsItem() async throws {
        let server = try LiveServer()
        try await server.put("moved", Self.start)
        let list = WrittenList(server.baseURL, "moved")
        await list.writer.start()
        #expect(await list.wait(toShow: [["a", "b", "c"], ["d"]]))
        list.transport.holdPolls = true // the writer holds revision 1 while another client inserts above b
        try await server.put("moved", ["sections": [
            ["id": "todo", "items": [["id": "n1"], ["id": "n2"], ["id": "a", "model": "A"], ["id": "b", "model": "B"], ["id": "c", "model": "C"]]],
            ["id": "done", "items": [["id": "d", "model": "D"]]],
        ]])
        let updated = try await list.writer.update("b", ItemChanges(model: "B!"))
        let moved = try await list.writer.move("a", to: .after("c"))
        #expect((updated, moved) == (3, 4))
        let sent = list.transport.sent
        #expect(sent.count == 3, "the update failed its guard once, then each write landed: \(sent.map(\.body))")
        #expect(Set(sent.map(\.key)).count == 3, "a rebuilt write is a new request with a new key")
        let served = try await server.document("moved")
        #expect(Self.ids(served) == [["n1", "n2", "b", "c", "a"], ["d"]])
        #expect(served.sections[0].items.map(\.model) == [.null, .null, "B!", "C", "A"])
        list.transport.holdPolls = false
        try await expectConverged(list, on: server, "moved")
        await list.stop()
    }

    @Test func aWriteWhoseItemOrAnchorIsGoneIsRefusedAndRolledBack() async throws {
        let server = try LiveServer()
        try await server.put("gone", Self.start)
        let list = WrittenList(server.baseURL, "gone")
        await list.writer.start()
        #expect(await list.wait(toShow: [["a", "b", "c"], ["d"]]))
        list.transport.holdPolls = true
        try await server.put("gone", ["sections": [["id": "todo", "items": [["id": "a", "model": "A"], ["id": "c", "model": "C"]]], ["id": "done", "items": []]]])
        let batchesBefore = list.binding.batches
        await #expect(throws: ListWriteError.conflict(WriteConflict(reason: .item, write: .update(id: "b", changes: ItemChanges(model: "B!"))))) {
            try await list.writer.update("b", ItemChanges(model: "B!"))
        }
        await #expect(throws: ListWriteError.conflict(WriteConflict(reason: .anchor, write: .insert(ListItem(id: "x"), at: .after("d"))))) {
            try await list.writer.insert(ListItem(id: "x"), at: .after("d"))
        }
        // Shown at once, then rolled back: each a batch the view accepted.
        #expect(list.seen.contains { $0.document.sections[1].items.map(\.id) == ["d", "x"] })
        #expect(list.shown == [["a", "b", "c"], ["d"]])
        #expect(list.binding.batches - batchesBefore >= 4)
        #expect(list.transport.sent.count == 1, "the update was sent on the old indexes once; the insert never")
        list.transport.holdPolls = false
        try await expectConverged(list, on: server, "gone")
        await list.stop()
    }

    @Test func pendingWritesSurviveARestartOfflineShownAtOnceAndSentOnceOnline() async throws {
        let server = try LiveServer()
        try await server.put("stored", Self.start)
        let directory = try TemporaryDirectory(prefix: "writer-storage")
        let storage = FileListStorage(directory: URL(fileURLWithPath: directory.path))
        let first = WrittenList(server.baseURL, "stored", storage: storage)
        await first.writer.start()
        #expect(await first.wait(toShow: [["a", "b", "c"], ["d"]]))
        first.transport.offline = true
        let abandoned = await first.launch(.insert(ListItem(id: "x"), at: .first(in: "done")))
        var storedKey: String?
        for _ in 0..<2_000 where storedKey == nil {
            storedKey = try await storage.load(listID: "stored")?.pending.first?.key
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(storedKey != nil, "the write was keyed, and its key stored before it was sent")
        await first.stop()
        await #expect(throws: ListWriteError.stopped) { try await abandoned.value }
        let stored = try #require(try await storage.load(listID: "stored"))
        #expect(stored.pending.map(\.write) == [.insert(ListItem(id: "x"), at: .first(in: "done"))])
        #expect(stored.document?.revision == 1)

        // The app starts again, still offline: what was stored is shown at once, with the write on top.
        let second = WrittenList(server.baseURL, "stored", transport: FaultyTransport(offline: true), storage: storage)
        await second.writer.start()
        #expect(await second.wait(toShow: [["a", "b", "c"], ["x", "d"]]))
        guard case .reset(let reset)? = second.seen.first?.change else { Issue.record("expected a restore first"); return }
        #expect(reset.reason == .restored)
        #expect(await second.writer.pendingWrites.count == 1)
        second.transport.offline = false
        #expect(await second.wait { _ in (try? storage.file(for: "stored")).flatMap { try? Data(contentsOf: $0) }.map { String(decoding: $0, as: UTF8.self).contains("\"pending\":[]") } ?? false })
        let served = try await server.document("stored")
        #expect(Self.ids(served) == [["a", "b", "c"], ["x", "d"]] && served.revision == 2, "sent once")
        let keys = second.transport.sent.map(\.key)
        #expect(!keys.isEmpty && keys.allSatisfy { $0 == storedKey }, "the stored key was sent again, not a new one: \(keys)")
        #expect(await second.wait { $0.binding.dataSource.document == served })
        #expect(second.view.violations.isEmpty)
        await second.stop()
    }

    @Test func aPutCreatesTheListTheWriterFollowsAndWritesByIDFollow() async throws {
        let server = try LiveServer()
        let list = WrittenList(server.baseURL, "created")
        await list.writer.start()
        #expect(try await list.writer.put(["items": [["id": "a", "model": "A"]]]) == 1)
        #expect(try await list.writer.insert(ListItem(id: "b"), at: .after("a")) == 2)
        #expect(try await list.writer.patch([["op": "add", "path": "/sections/0/items/0", "value": ["id": "z"]]]) == 3)
        await #expect(throws: ListWriteError.conflict(WriteConflict(reason: .patch, write: .patch([["op": "remove", "path": "/sections/0/items/9"]])))) {
            try await list.writer.patch([["op": "remove", "path": "/sections/0/items/9"]])
        }
        #expect(Self.ids(try await server.document("created")) == [["z", "a", "b"]])
        try await expectConverged(list, on: server, "created")
        await list.stop()
        await #expect(throws: ListWriteError.stopped) { try await list.writer.remove("a") }
    }

    @Test func aRefusalToRetryIsSentAgainWithItsKeyAfterABackoffAndAppliedOnce() async throws {
        let server = try LiveServer()
        try await server.put("busy", Self.start)
        let list = WrittenList(server.baseURL, "busy")
        await list.writer.start()
        #expect(await list.wait(toShow: [["a", "b", "c"], ["d"]]))
        list.transport.failWrites([503, 429, 408])
        #expect(try await list.writer.remove("c") == 2)
        let sent = list.transport.sent
        #expect(sent.count == 4 && Set(sent.map(\.key)).count == 1, "\(sent)")
        let reported = list.retries.all.compactMap { error -> Int? in
            if case .status(let status, _) = error { return status }
            return nil
        }
        #expect(reported == [503, 429, 408], "each refusal is reported")
        try await expectConverged(list, on: server, "busy")
        await list.stop()
    }

    @Test func storedWritesGoBeforeThoseMadeBeforeStartAndStopEndsAWriterNeverStarted() async throws {
        let server = try LiveServer()
        try await server.put("ordered", Self.start)
        let directory = try TemporaryDirectory(prefix: "writer-order")
        let storage = FileListStorage(directory: URL(fileURLWithPath: directory.path))
        try await storage.save(StoredList(listID: "ordered", document: nil, pending: [PendingWrite(write: .insert(ListItem(id: "x"), at: .last(in: "todo")))]))
        let list = WrittenList(server.baseURL, "ordered", storage: storage)
        let after = await list.launch(.insert(ListItem(id: "y"), at: .after("x")))
        await list.writer.start()
        #expect(try await after.value == 3, "y went after x, which the storage held")
        #expect(Self.ids(try await server.document("ordered")) == [["a", "b", "c", "x", "y"], ["d"]])
        try await expectConverged(list, on: server, "ordered")
        await list.stop()

        let never = WrittenList(server.baseURL, "ordered")
        let queued = await never.launch(.remove(id: "a"))
        await never.stop()
        await #expect(throws: ListWriteError.stopped) { try await queued.value }
        #expect(Self.ids(try await server.document("ordered")).first?.first == "a", "never sent")
    }

    @Test func severalWritersThroughAnswersDroppedAtRandomEndOnTheServersDocument() async throws {
        let server = try LiveServer()
        try await server.put("shared", Self.start)
        let lists = (0..<3).map { WrittenList(server.baseURL, "shared", transport: FaultyTransport(dropShare: 0.3, seed: UInt64(10 + $0))) }
        for list in lists { await list.writer.start() }
        for list in lists { #expect(await list.wait(toShow: [["a", "b", "c"], ["d"]])) }
        var random = SplitMix64(seed: 41)
        var inserted: [String] = []
        var writes: [Task<Int, any Error>] = []
        // Each writer's writes queue in its order (one goes after the one before); the writers interleave.
        for k in 0..<8 {
            for (n, list) in lists.enumerated() {
                let id = "w\(n)-\(k)"
                let place: ListPlacement = switch random.next() % 4 {
                case 0: .first(in: "todo")
                case 1: .last(in: "done")
                case 2: .after(["a", "b", "c", "d"][Int(random.next() % 4)])
                default: k == 0 ? .last(in: "todo") : .after("w\(n)-\(k - 1)")
                }
                inserted.append(id)
                writes.append(await list.launch(.insert(ListItem(id: id, model: .string(id)), at: place)))
                if k % 3 == 2 { writes.append(await list.launch(.update(id: "b", changes: ItemChanges(model: .string(id))))) }
            }
        }
        for write in writes { _ = try await write.value }
        let served = try await server.document("shared")
        let ids = served.sections.flatMap { $0.items.map(\.id) }
        #expect(Set(inserted).isSubset(of: Set(ids)) && ids.count == Set(ids).count, "every acknowledged insert is there once")
        #expect(ids.count == 4 + inserted.count)
        let byKey = Dictionary(grouping: lists.flatMap(\.transport.sent), by: \.key)
        #expect(byKey.values.contains { $0.count > 1 }, "some answer was lost, and its write sent again with its key")
        #expect(byKey.count > inserted.count + 6, "some write was built again after its guard failed (\(byKey.count) keys)")
        for list in lists {
            try await expectConverged(list, on: server, "shared")
            await list.stop()
        }
    }
}
