import Foundation
import ListDeltaCore
import ListDeltaTestSupport
import Testing
@testable import ListDeltaKit

/// A follower of a live query (API.md, "Live queries") against the real service in this process: the query's
/// result as the first document, and `setQuery` changing it by a diff that a simulated UIKit view accepts.
@MainActor
@Suite(.serialized) struct LiveQueryFollowerTests {
    /// Fifty items `i00`…`i49`, rank = number, cat alternating `a`, `b`.
    static func base() -> JSONValue {
        ["items": .array((0..<50).map { n -> JSONValue in
            ["id": .string(String(format: "i%02d", n)), "model": ["rank": .number(JSONNumber(n)), "cat": .string(n % 2 == 0 ? "a" : "b")]]
        })]
    }

    static func ids(_ range: some Sequence<Int>) -> [String] { range.map { String(format: "i%02d", $0) } }

    @Test(arguments: FollowOptions.Mode.allCases)
    func setQueryGrowsMovesAndFiltersByDiffsTheViewAccepts(mode: FollowOptions.Mode) async throws {
        let server = try LiveServer()
        try await server.put("q", Self.base())
        let view = SimulatedListView()
        let binding = ListBinding(view: view)
        view.dataProvider = { binding.dataSource }
        view.onViolation = { Issue.record("the view refused a batch: \($0)") }
        var options = FollowOptions(mode: mode)
        options.wait = 2
        options.query = #"{"sort":[{"path":"/model/rank","order":"desc"}],"limit":20}"#
        var iterator = ListFollower(baseURL: server.baseURL, listID: "q", options: options).makeAsyncIterator()
        let first = try #require(await iterator.next())
        binding.apply(first)
        #expect(view.shownItems.flatMap { $0 } == Self.ids((30..<50).reversed()))
        // Show 20 more: inserts only.
        let grown = try #require(try await iterator.setQuery(#"{"sort":[{"path":"/model/rank","order":"desc"}],"limit":40}"#))
        guard case .diff(let diff) = grown.change else { Issue.record("expected a diff"); return }
        #expect(diff.items.deleted.isEmpty && diff.items.moved.isEmpty && diff.items.inserted.count == 20)
        binding.apply(grown)
        #expect(view.shownItems.flatMap { $0 } == Self.ids((10..<50).reversed()))
        // The window moves, then a filter.
        binding.apply(try #require(try await iterator.setQuery(#"{"sort":[{"path":"/model/rank","order":"desc"}],"offset":20,"limit":20}"#)))
        #expect(view.shownItems.flatMap { $0 } == Self.ids((10..<30).reversed()))
        let filter = #"{"where":[{"path":"/model/cat","op":"eq","value":"a"}],"sort":[{"path":"/model/rank"}],"limit":5}"#
        binding.apply(try #require(try await iterator.setQuery(filter)))
        #expect(view.shownItems.flatMap { $0 } == Self.ids([0, 2, 4, 6, 8]))
        // A refused query changes nothing; the follower goes on with the one it had.
        do {
            _ = try await iterator.setQuery(#"{"limit":0}"#)
            Issue.record("a limit of 0 was accepted")
        } catch {
            guard case .status(400, _) = error else { Issue.record("expected a 400, got \(error)"); return }
        }
        try await server.put("q", ["items": .array((Self.base().objectValue?["items"]?.arrayValue ?? []).filter { $0.objectValue?["id"] != .string("i02") })])
        let next = try #require(await iterator.next())
        binding.apply(next)
        #expect(view.shownItems.flatMap { $0 } == Self.ids([0, 4, 6, 8, 10]))
        #expect(view.violations.isEmpty)
        // Back to the whole list.
        binding.apply(try #require(try await iterator.setQuery(nil)))
        #expect(view.shownItems.flatMap { $0 }.count == 49)
    }
}
