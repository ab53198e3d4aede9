import ListDeltaCore
import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaApplication

/// A kept query follows its base write by write: its result is always the query evaluated over the base, it says
/// "changed" exactly when that result changed (a follower is woken by no other write), and it answers the few
/// results before the current one without evaluating them again.
@Suite struct QueryEntryTests {
    static let queries = [
        #"{"where":[{"path":"/model/read","op":"eq","value":false}]}"#,
        #"{"where":[{"path":"/model/n","op":"gte","value":2}],"sort":[{"path":"/model/n","order":"desc"}],"limit":3}"#,
        #"{"sort":[{"path":"/id"}],"offset":2,"limit":4,"sections":"none"}"#,
        #"{"where":[{"path":"/type","op":"exists","value":true}],"sections":{"by":"/model/n"}}"#,
        #"{"where":[{"path":"/model/text","op":"prefix","value":"t1"}]}"#,
        #"{"limit":1}"#,
    ]

    @Test(arguments: 0..<4)
    func anEntryFollowsRandomBaseWritesAndChangesExactlyWhenItsResultDoes(seed: Int) throws {
        let limits = DocumentLimits()
        var random = RandomDocuments(seed: UInt64(100 + seed))
        var document = random.document(id: "base", sections: 1...4, items: 0...10)
        let queries = try Self.queries.map { try LiveQuery(text: $0, base: "base", limits: limits) }
        let entries = queries.map { QueryEntry(query: $0, key: QueryKeeper.hubKey(of: $0), base: ViewBase(document), revision: 1, limits: limits) }
        var history: [[ListDocument]] = [queries.map { $0.result(over: document, revision: 1, limits: limits) }]
        for revision in 2...60 {
            let next = random.edit(document, intensity: 0.25)
            let diff = ListDiff(from: document, to: next)
            for (index, entry) in entries.enumerated() {
                // Now and then an entry misses a revision (it was made after the updater read the base): rebuilt.
                let previous = revision % 7 == index ? nil : revision - 1
                let changed = entry.advance(to: ViewBase(next), revision: revision, previous: previous, diff: diff)
                let expected = queries[index].result(over: next, revision: revision, limits: limits)
                #expect(changed == !expected.hasSameContent(as: history.last![index]), "query \(index) at \(revision)")
                let kept = try #require(entry.result(at: revision))
                #expect(kept.hasSameContent(as: expected) && kept.revision == revision)
            }
            history.append(queries.map { $0.result(over: next, revision: revision, limits: limits) })
            document = next
        }
        // The results before the current one: each either known (and right) or not known, never wrong.
        for (index, entry) in entries.enumerated() {
            for revision in 1...60 {
                if let known = entry.result(at: revision) {
                    #expect(known.hasSameContent(as: history[revision - 1][index]), "query \(index) at \(revision)")
                }
            }
        }
    }
}
