import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaCore

@Suite struct InverseReplayTests {
    @Test(arguments: 0..<4)
    func inverseUndoesEveryRandomDiff(batch: Int) throws {
        // 4 batches x 500 seeds: every kind of change, the inverse built from the diff and the old document only.
        for seed in 0..<500 {
            var random = RandomDocuments(seed: UInt64(200_000 + batch * 1_000 + seed))
            let old = random.document()
            var new = old
            for _ in 0..<Int.random(in: 1...3, using: &random.generator) { new = random.edit(new) }
            let diff = ListDiff(from: old, to: new)
            let inverse = try diff.inverted(from: old)
            #expect(inverse.from == new.revision && inverse.to == old.revision)
            #expect(inverse.fromCounts == new.sectionCounts && inverse.toCounts == old.sectionCounts)
            let undone = try inverse.apply(to: new)
            #expect(undone.sections == old.sections, "seed \(seed): the inverse does not lead back")
            // The inverse is a diff like any other: its JSON form reads back to it.
            #expect(try ListDiff(json: try JSONReader().read(JSONWriter.bytes(of: inverse.jsonValue))) == inverse)
        }
    }

    @Test func inverseOfAnEmptyDiffIsEmpty() throws {
        var random = RandomDocuments(seed: 3)
        let document = random.document()
        let inverse = try ListDiff(from: document, to: document).inverted(from: document)
        #expect(inverse.isEmpty)
    }

    @Test func inverseRefusesAnOldDocumentTheDiffDoesNotFit() {
        var random = RandomDocuments(seed: 4)
        let old = random.document(sections: 2...3, items: 3...5)
        let new = random.edit(old, intensity: 0.9)
        let unrelated = random.document(sections: 4...4, items: 1...1)
        #expect(throws: DiffApplicationError.self) { try ListDiff(from: old, to: new).inverted(from: unrelated) }
    }

    @Test(arguments: 0..<4)
    func replayerMatchesApplyingDiffsOneByOne(batch: Int) throws {
        for seed in 0..<40 {
            var random = RandomDocuments(seed: UInt64(300_000 + batch * 1_000 + seed))
            // Sections large enough that chunks split, empty and vanish along the way.
            var document = random.document(sections: 1...4, items: 0...1_200)
            var replayer = DiffReplayer(document)
            for _ in 0..<12 {
                let next = random.edit(document, intensity: 0.2)
                let diff = ListDiff(from: document, to: next)
                try replayer.apply(diff)
                document = try diff.apply(to: document)
                #expect(replayer.revision == next.revision)
            }
            #expect(replayer.document == document)
        }
    }

    @Test func replayerWalksBackwardsThroughInverses() throws {
        var random = RandomDocuments(seed: 77)
        var documents = [random.document(sections: 2...3, items: 300...900)]
        for _ in 0..<30 { documents.append(random.edit(documents.last!, intensity: 0.1)) }
        var inverses: [ListDiff] = []
        for index in 1..<documents.count {
            inverses.append(try ListDiff(from: documents[index - 1], to: documents[index]).inverted(from: documents[index - 1]))
        }
        var replayer = DiffReplayer(documents.last!)
        for (index, inverse) in inverses.enumerated().reversed() {
            try replayer.apply(inverse)
            #expect(replayer.document == documents[index], "back at \(index)")
        }
    }

    @Test func replayerRefusesADiffThatDoesNotFit() {
        var random = RandomDocuments(seed: 9)
        let document = random.document(sections: 2...2, items: 4...6)
        var replayer = DiffReplayer(document)
        var diff = ListDiff(from: document, to: random.edit(document, intensity: 0.8))
        diff.items.deleted.append(ItemPath(section: 0, item: 10_000))
        #expect(throws: DiffApplicationError.self) { try replayer.apply(diff) }
        // A batch that does not fit changes nothing.
        #expect(replayer.document == document)
        var wrongCounts = ListDiff(from: document, to: document)
        wrongCounts.fromCounts = [1]
        #expect(throws: DiffApplicationError.self) { try replayer.apply(wrongCounts) }
        #expect(replayer.document == document)
    }

    @Test func chunkedItemsBehaveLikeAnArray() {
        var generator = SplitMix64(seed: 11)
        let initial = (0..<700).map { ListItem(id: "i\($0)") }
        var chunked = ChunkedItems(initial)
        var array = initial
        var next = 700
        for _ in 0..<3_000 {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where !array.isEmpty:
                let position = Int.random(in: array.indices, using: &generator)
                chunked.remove(at: position)
                array.remove(at: position)
            case 1:
                next += 1
                let position = Int.random(in: 0...array.count, using: &generator)
                chunked.insert(ListItem(id: "i\(next)"), at: position)
                array.insert(ListItem(id: "i\(next)"), at: position)
            default:
                guard !array.isEmpty else { continue }
                let position = Int.random(in: array.indices, using: &generator)
                chunked[position] = ListItem(id: "u\(position)")
                array[position] = ListItem(id: "u\(position)")
            }
            #expect(chunked.count == array.count)
        }
        #expect(chunked.array.map(\.id) == array.map(\.id))
        // Chunks that empty vanish, and an emptied sequence grows again; one chunk splits past twice its size.
        while chunked.count > 0 { chunked.remove(at: chunked.count / 2) }
        #expect(chunked.array.isEmpty)
        for k in 0..<(3 * ChunkedItems.chunkSize) { chunked.insert(ListItem(id: "n\(k)"), at: k / 2) }
        var expected: [ListItem] = []
        for k in 0..<(3 * ChunkedItems.chunkSize) { expected.insert(ListItem(id: "n\(k)"), at: k / 2) }
        #expect(chunked.array.map(\.id) == expected.map(\.id))
        #expect(chunked[ChunkedItems.chunkSize + 7].id == expected[ChunkedItems.chunkSize + 7].id)
    }
}
