import Testing
@testable import ListDeltaCore

@Suite struct DiffEdgeCaseTests {
    private func items(_ ids: [String]) -> [ListItem] { ids.map { ListItem(id: $0, model: ["v": .string($0)]) } }

    private func flat(_ ids: [String], revision: Int = 1) -> ListDocument {
        ListDocument(id: "l", revision: revision, sections: [ListSection(id: "main", items: items(ids))])
    }

    @Test func exampleOfAPIDocumentIsReproducedExactly() throws {
        let cell = "TextCell"
        func item(_ id: String, _ model: JSONValue = [:]) -> ListItem { ListItem(id: id, cell: cell, model: model) }
        let old = ListDocument(id: "inbox", revision: 5, sections: [
            ListSection(id: "today", title: "Today", indexTitle: "T", items: [item("m1"), item("m2"), item("m3")]),
            ListSection(id: "old", title: "Old", indexTitle: "O", items: [item("o1")]),
            ListSection(id: "s2", title: "Soon", indexTitle: "S", items: [item("c1"), item("c2")]),
            ListSection(id: "later", title: "Later", indexTitle: "L", items: [item("l1")]),
        ])
        let new = ListDocument(id: "inbox", revision: 7, sections: [
            ListSection(id: "new", title: "New", indexTitle: "N", items: []),
            ListSection(id: "today", title: "Today", indexTitle: "T", items: [item("x"), item("m1")]),
            ListSection(id: "later", title: "Later", indexTitle: "L", items: [item("l1")]),
            ListSection(id: "s2", title: "Renamed", indexTitle: "R", items: [item("c1"), item("c2", ["read": true]), item("m3")]),
        ])
        let diff = ListDiff(from: old, to: new)
        let expected = try JSONReader().read("""
            {"id": "inbox", "from": 5, "to": 7,
             "sections": {
               "deleted":  [1],
               "inserted": [{"at": 0, "section": {"id": "new", "title": "New", "indexTitle": "N", "items": []}}],
               "moved":    [{"from": 2, "to": 3}],
               "updated":  [{"at": 3, "section": {"id": "s2", "title": "Renamed", "indexTitle": "R"}}]
             },
             "items": {
               "deleted":  [[0, 1]],
               "inserted": [{"at": [1, 0], "item": {"id": "x", "cell": "TextCell", "model": {}}}],
               "moved":    [{"from": [0, 2], "to": [3, 2]}],
               "updated":  [{"at": [3, 1], "item": {"id": "c2", "cell": "TextCell", "model": {"read": true}}}]
             },
             "counts": {"from": [3, 1, 2, 1], "to": [0, 2, 1, 3]}}
            """)
        #expect(diff.jsonValue == expected)
        expectExactDiff(diff, from: old, to: new)
    }

    @Test func emptyToEmptyIsAnEmptyDiff() {
        let empty = ListDocument(id: "l", revision: 1)
        let diff = ListDiff(from: empty, to: empty)
        #expect(diff.isEmpty)
        #expect(JSONWriter.string(of: diff.jsonValue).contains("\"deleted\":[]"))
    }

    @Test func fromRevisionZeroInsertsEverything() {
        let new = ListDocument(id: "l", revision: 3, sections: [ListSection(id: "a", items: items(["1", "2"])), ListSection(id: "b")])
        let diff = ListDiff(from: .empty(id: "l"), to: new)
        #expect(diff.sections.inserted.map(\.at) == [0, 1])
        #expect(diff.items.inserted.isEmpty)
        #expect(JSONPatch(diff: diff, from: .empty(id: "l"), to: new).operations == [.replace(path: JSONPointer(), value: new.jsonValue)])
        expectExactDiff(diff, from: .empty(id: "l"), to: new)
    }

    @Test func oneItemDocuments() {
        let a = flat(["a"])
        let b = flat(["b"], revision: 2)
        let diff = ListDiff(from: a, to: b)
        #expect(diff.items.deleted == [ItemPath(section: 0, item: 0)])
        #expect(diff.items.inserted.map(\.at) == [ItemPath(section: 0, item: 0)])
        expectExactDiff(diff, from: a, to: b)
        expectExactDiff(ListDiff(from: a, to: a), from: a, to: a)
    }

    @Test func totalReversalMovesAllButOne() {
        let ids = (0..<50).map(String.init)
        let a = flat(ids)
        let b = flat(ids.reversed(), revision: 2)
        let diff = ListDiff(from: a, to: b)
        #expect(diff.items.moved.count == 49)
        #expect(diff.items.deleted.isEmpty && diff.items.inserted.isEmpty && diff.items.updated.isEmpty)
        expectExactDiff(diff, from: a, to: b)
    }

    @Test func fullShuffleMovesTheLISComplement() {
        var generator = SplitMix64(seed: 7)
        let ids = (0..<300).map(String.init)
        let a = flat(ids)
        let b = flat(ids.shuffled(using: &generator), revision: 2)
        let diff = ListDiff(from: a, to: b)
        let positions = b.sections[0].items.map { Int($0.id)! }
        #expect(diff.items.moved.count == 300 - quadraticLISLength(positions))
        expectExactDiff(diff, from: a, to: b)
    }

    @Test func movingOneItemToTheFrontIsOneMove() {
        let a = flat(["a", "b", "c", "d"])
        let b = flat(["d", "a", "b", "c"], revision: 2)
        let diff = ListDiff(from: a, to: b)
        #expect(diff.items.moved == [Move(from: ItemPath(section: 0, item: 3), to: ItemPath(section: 0, item: 0))])
        #expect(JSONPatch(diff: diff, from: a, to: b).operations.filter { $0.name == "move" }.count == 1)
    }

    @Test func itemsEscapingADeletedSectionAreInserted() {
        let a = ListDocument(id: "l", revision: 1, sections: [ListSection(id: "gone", items: items(["x", "y"])), ListSection(id: "stay", items: items(["z"]))])
        let b = ListDocument(id: "l", revision: 2, sections: [ListSection(id: "stay", items: items(["x", "z"]))])
        let diff = ListDiff(from: a, to: b)
        #expect(diff.sections.deleted == [0])
        #expect(diff.items.inserted.map(\.at) == [ItemPath(section: 0, item: 0)])
        #expect(diff.items.moved.isEmpty && diff.items.deleted.isEmpty)
        expectExactDiff(diff, from: a, to: b)
    }

    @Test func itemsEnteringAnInsertedSectionAreDeleted() {
        let a = ListDocument(id: "l", revision: 1, sections: [ListSection(id: "stay", items: items(["x", "z"]))])
        let b = ListDocument(id: "l", revision: 2, sections: [ListSection(id: "fresh", items: items(["x"])), ListSection(id: "stay", items: items(["z"]))])
        let diff = ListDiff(from: a, to: b)
        #expect(diff.sections.inserted.map(\.at) == [0])
        #expect(diff.items.deleted == [ItemPath(section: 0, item: 0)])
        #expect(diff.items.inserted.isEmpty && diff.items.moved.isEmpty)
        expectExactDiff(diff, from: a, to: b)
    }

    @Test func crossSectionMoveWithContentChangeIsMovedAndUpdated() {
        let a = ListDocument(id: "l", revision: 1, sections: [ListSection(id: "a", items: items(["x"])), ListSection(id: "b")])
        var b = ListDocument(id: "l", revision: 2, sections: [ListSection(id: "a"), ListSection(id: "b", items: items(["x"]))])
        b.sections[1].items[0].model = "changed"
        let diff = ListDiff(from: a, to: b)
        #expect(diff.items.moved == [Move(from: ItemPath(section: 0, item: 0), to: ItemPath(section: 1, item: 0))])
        #expect(diff.items.updated.map(\.at) == [ItemPath(section: 1, item: 0)])
        expectExactDiff(diff, from: a, to: b)
    }

    @Test func objectKeyOrderIsNotAChange() throws {
        let reader = JSONReader()
        var a = flat(["a"])
        var b = flat(["a"], revision: 2)
        a.sections[0].items[0].model = try reader.read(#"{"x":1,"y":[1,{"p":true,"q":null}]}"#)
        b.sections[0].items[0].model = try reader.read(#"{"y":[1,{"q":null,"p":true}],"x":1.0}"#)
        #expect(ListDiff(from: a, to: b).isEmpty)
    }

    @Test func countsAreCheckedBeforeApplying() {
        let a = flat(["a", "b"])
        let b = flat(["b"], revision: 2)
        let diff = ListDiff(from: a, to: b)
        #expect(throws: DiffApplicationError.self) { try diff.apply(to: flat(["a", "b", "c"])) }
    }

    @Test func replicaRejectsAnIndexOutsideTheDocument() {
        var diff = ListDiff(listID: "l", from: 1, to: 2, fromCounts: [1], toCounts: [1])
        diff.items.moved = [Move(from: ItemPath(section: 0, item: 5), to: ItemPath(section: 0, item: 0))]
        #expect(throws: DiffApplicationError.self) { try diff.apply(to: flat(["a"])) }
    }

    @Test func aRemovedBlockLongerThanTheLookAheadLeavesOnlyTheEditToTheHashTable() {
        // A block of 300 items deleted, and 200 moved away to the end: the first pass must find its place again
        // after each, or every later item would be matched through the hash table.
        let ids = (0..<5_000).map { "item-\($0)" }
        var edited = ids
        edited.removeSubrange(1_000..<1_300)
        let movedAway = edited[3_000..<3_200]
        edited.removeSubrange(3_000..<3_200)
        edited.append(contentsOf: movedAway)
        let old = flat(ids)
        let new = flat(edited, revision: 2)
        var sections = SectionChanges()
        let matching = SectionMatching(old: old.sections, new: new.sections, into: &sections)
        var differ = ItemDiffer(old: old.sections, new: new.sections, matching: matching)
        var changes = ItemChanges()
        differ.fill(&changes)
        #expect(differ.hashedItems < 300, "\(differ.hashedItems) items went to the hash table")
        let diff = ListDiff(from: old, to: new)
        #expect(diff.items.deleted.count == 300)
        #expect(diff.items.moved.count == 200)
        expectExactDiff(diff, from: old, to: new)
    }

    @Test func itemsSharingContentButNotTheirIDAreDifferent() {
        let item = ListItem(id: "a", type: "Text", cell: "TextCell", model: ["text": "same"])
        var renamed = item
        renamed.id = "b"
        #expect(item != renamed)
        #expect(!item.hasDifferentContent(from: renamed))
        #expect(renamed.id == "b" && item.id == "a")
    }
}

