import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaCore

@Suite struct DiffReplayTests {
    @Test(arguments: 0..<8)
    func randomPairsReplayForwardsAndBackwards(batch: Int) {
        // 8 batches x 400 seeds = 3,200 random pairs, each checked both ways.
        for seed in 0..<400 {
            var random = RandomDocuments(seed: UInt64(batch * 1_000 + seed))
            let old = random.document()
            var new = old
            for _ in 0..<Int.random(in: 1...3, using: &random.generator) { new = random.edit(new) }
            expectExactDiff(ListDiff(from: old, to: new), from: old, to: new)
            expectExactDiff(ListDiff(from: new, to: old), from: new, to: old)
        }
    }

    @Test func unrelatedDocumentsReplay() {
        for seed in 0..<300 {
            var random = RandomDocuments(seed: UInt64(50_000 + seed))
            let old = random.document()
            var new = random.document(revision: 2)
            // Share some items between otherwise unrelated documents.
            if !new.sections.isEmpty {
                for section in old.sections.prefix(2) {
                    new.sections[0].items += section.items.prefix(2)
                }
            }
            expectExactDiff(ListDiff(from: old, to: new), from: old, to: new)
        }
    }

    @Test func largeRandomEditsReplay() {
        for seed in 0..<20 {
            var random = RandomDocuments(seed: UInt64(90_000 + seed))
            let old = random.document(sections: 10...30, items: 20...80)
            var new = old
            for _ in 0..<5 { new = random.edit(new, intensity: 0.5) }
            expectExactDiff(ListDiff(from: old, to: new), from: old, to: new)
        }
    }
}
