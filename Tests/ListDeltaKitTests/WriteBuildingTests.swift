import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaKit

/// How a writer shows a write and how it sends it: the guarded JSON Patch, applied as the server applies it, makes
/// exactly the document the writer showed; on a document whose indexes moved, its guards fail.
struct WriteBuildingTests {
    static let list = ListDocument(id: "l", kind: .sections, revision: 3, sections: [
        ListSection(id: "todo", items: ["a", "b", "c"].map { ListItem(id: $0, model: .string($0)) }),
        ListSection(id: "done", items: [ListItem(id: "d")]),
        ListSection(id: "empty"),
    ])

    /// The server's way: the patch on the document's JSON, read back and validated.
    static func serverApplies(_ request: WriteRequest, to document: ListDocument) throws -> ListDocument {
        let patched = try JSONPatch(json: request.body).apply(to: document.jsonValue)
        return try DataProviderFactory().makeDocument(from: patched, listID: document.id, revision: document.revision)
    }

    static func ids(_ document: ListDocument?) -> [[String]] { document?.sections.map { $0.items.map(\.id) } ?? [] }

    @Test(arguments: [
        (ListWrite.insert(ListItem(id: "x"), at: .after("a")), [["a", "x", "b", "c"], ["d"], []]),
        (.insert(ListItem(id: "x"), at: .first(in: "done")), [["a", "b", "c"], ["x", "d"], []]),
        (.insert(ListItem(id: "x"), at: .last(in: "empty")), [["a", "b", "c"], ["d"], ["x"]]),
        (.move(id: "a", to: .after("c")), [["b", "c", "a"], ["d"], []]),
        (.move(id: "c", to: .first(in: "todo")), [["c", "a", "b"], ["d"], []]),
        (.move(id: "a", to: .after("b", in: "todo")), [["b", "a", "c"], ["d"], []]),
        (.move(id: "b", to: .after("d")), [["a", "c"], ["d", "b"], []]),
        (.move(id: "d", to: .last(in: "empty")), [["a", "b", "c"], [], ["d"]]),
        (.remove(id: "b"), [["a", "c"], ["d"], []]),
        (.update(id: "c", changes: ItemChanges(model: ["done": true], type: "todo")), [["a", "b", "c"], ["d"], []]),
    ])
    func theGuardedPatchMakesWhatTheWriterShows(write: ListWrite, expected: [[String]]) throws {
        let shown = try #require(write.applied(to: Self.list))
        #expect(Self.ids(shown) == expected)
        let request = try WriteRequest.guarded(write, against: Self.list).get()
        #expect(request.method == "PATCH")
        #expect(try Self.serverApplies(request, to: Self.list) == shown)
        // The write by id, on the document after it, is the same write: a move or an update applied again
        // changes nothing more; an insert or a remove applied again does not apply (what would repeat an id).
        switch write {
        case .insert, .remove: #expect(write.applied(to: shown) == nil)
        default: #expect(write.applied(to: shown) == shown)
        }
    }

    @Test func anUpdateSetsOnlyTheMembersItNames() throws {
        let shown = try #require(ListWrite.update(id: "a", changes: ItemChanges(cell: "Big")).applied(to: Self.list))
        let item = shown.sections[0].items[0]
        #expect(item.cell == "Big" && item.model == "a" && item.type == nil)
    }

    @Test func guardsFailOnceTheIndexesMovedSoTheWriteNeverLandsOnAnotherItem() throws {
        var moved = Self.list
        moved.sections[0].items.insert(ListItem(id: "new"), at: 0)
        for write: ListWrite in [.remove(id: "b"), .update(id: "b", changes: ItemChanges(model: 1)), .move(id: "a", to: .after("c")),
                                 .insert(ListItem(id: "x"), at: .after("b"))] {
            let request = try WriteRequest.guarded(write, against: Self.list).get()
            #expect(throws: JSONPatchError.self, "\(write.kind)") { try Self.serverApplies(request, to: moved) }
            // Built again on the new document, it lands where it means to.
            let rebuilt = try WriteRequest.guarded(write, against: moved).get()
            #expect(try Self.serverApplies(rebuilt, to: moved) == write.applied(to: moved))
        }
    }

    @Test func aWriteWhoseItemAnchorOrSectionIsGoneIsAConflict() {
        #expect(WriteRequest.guarded(.remove(id: "zz"), against: Self.list) == .failure(.item))
        #expect(WriteRequest.guarded(.insert(ListItem(id: "x"), at: .after("zz")), against: Self.list) == .failure(.anchor))
        #expect(WriteRequest.guarded(.insert(ListItem(id: "x"), at: .after("d", in: "todo")), against: Self.list) == .failure(.anchor))
        #expect(WriteRequest.guarded(.move(id: "a", to: .last(in: "zz")), against: Self.list) == .failure(.section))
        #expect(ListWrite.insert(ListItem(id: "a"), at: .last(in: "done")).applied(to: Self.list) == nil, "an id the list has")
    }

    @Test func randomWritesOnRandomDocumentsLandAsShown() throws {
        var random = RandomDocuments(seed: 41)
        var checked = 0
        for _ in 0..<300 {
            let document = random.document(id: "r", sections: 1...4, items: 0...6)
            let ids = document.sections.flatMap { $0.items.map(\.id) }
            let sections = document.sections.map(\.id)
            func place() -> ListPlacement {
                let section = sections[Int(random.generator.next() % UInt64(sections.count))]
                switch (random.generator.next() % 3, ids.isEmpty) {
                case (0, _): return .first(in: section)
                case (1, _), (_, true): return .last(in: section)
                default: return .after(ids[Int(random.generator.next() % UInt64(ids.count))])
                }
            }
            var writes: [ListWrite] = [.insert(random.item(), at: place())]
            if let id = ids.randomElement(using: &random.generator) {
                writes += [.remove(id: id), .update(id: id, changes: ItemChanges(model: random.model())), .move(id: id, to: place())]
            }
            for write in writes {
                guard case .success(let request) = WriteRequest.guarded(write, against: document) else { continue }
                if case .move(let id, let placement) = write, placement.anchorID == id { continue }
                let shown = try #require(write.applied(to: document), "\(write)")
                #expect(try Self.serverApplies(request, to: document) == shown, "\(write) on \(Self.ids(document))")
                checked += 1
            }
        }
        #expect(checked > 900)
    }

    @Test func everyWriteAndAStoredListRoundTripThroughTheirJSON() throws {
        let writes: [ListWrite] = [
            .insert(ListItem(id: "x", type: "t", model: ["a": 1]), at: .after("a")),
            .insert(ListItem(id: "y"), at: .first(in: "done")),
            .update(id: "a", changes: ItemChanges(model: nil, cell: .null, type: "t")),
            .remove(id: "b"),
            .move(id: "c", to: .last(in: "todo")),
            .put(["items": [["id": "p"]]]),
            .patch([["op": "remove", "path": "/sections/0/items/0"]]),
        ]
        for write in writes {
            #expect(try ListWrite(json: JSONReader().read(JSONWriter.string(of: write.jsonValue))) == write)
        }
        let stored = StoredList(
            listID: "l", document: Self.list,
            pending: [PendingWrite(write: writes[0], key: "k1", request: WriteRequest(method: "PATCH", body: [])), PendingWrite(write: writes[3])],
            acknowledged: [AcknowledgedWrite(write: writes[4], revision: 9)])
        #expect(try StoredList(json: JSONReader().read(JSONWriter.string(of: stored.jsonValue))) == stored)
        #expect(throws: ListWriteError.self) { try StoredList(json: ["version": 2, "listID": "l"]) }
    }

    @Test func writesTheCallerGotWrongAreRefusedBeforeTheyQueue() {
        for write: ListWrite in [.remove(id: ""), .move(id: "a", to: .after("a")), .insert(ListItem(id: "x"), at: ListPlacement(section: nil, anchor: .last)),
                                 .update(id: "a", changes: ItemChanges(cell: 3)), .patch(["op": "add"]), .put([1])] {
            #expect(throws: ListWriteError.self, "\(write)") { try write.validated() }
        }
    }

    @Test func aFileStorageKeepsOneFileAListAndMovesAnUnreadableOneAside() async throws {
        let directory = try TemporaryDirectory(prefix: "list-storage")
        let storage = FileListStorage(directory: URL(fileURLWithPath: directory.path).appendingPathComponent("lists"))
        #expect(try await storage.load(listID: "l") == nil)
        let stored = StoredList(listID: "l", document: Self.list, pending: [PendingWrite(write: .remove(id: "a"))])
        try await storage.save(stored)
        try await storage.save(StoredList(listID: "other", document: nil, pending: []))
        #expect(try await storage.load(listID: "l") == stored)
        #expect(try FileManager.default.contentsOfDirectory(atPath: storage.directory.path).sorted() == ["l.json", "other.json"])
        // A file that is no stored list is moved aside: the writer starts afresh instead of never storing again.
        try Data("{\"version\":1,\"listID\":\"l\",\"document\":".utf8).write(to: storage.file(for: "l"))
        #expect(try await storage.load(listID: "l") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: storage.directory.path).sorted() == ["l.json.unreadable", "other.json"])
    }
}
