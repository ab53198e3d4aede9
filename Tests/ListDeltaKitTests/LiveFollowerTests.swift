import ListDeltaServer
import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import ListDeltaService
import ListDeltaTestSupport
import Testing
@testable import ListDeltaKit

/// The follower against the real service, started in this process on a loopback port.
@MainActor
@Suite(.serialized) struct LiveFollowerTests {
    /// The sections form of a write for `document`.
    static func body(_ document: ListDocument) -> JSONValue {
        ["sections": .array(document.sections.map(\.jsonValue))]
    }

    @Test func aThousandRandomWritesArriveInOrderAsBatchesTheViewAccepts() async throws {
        let server = try LiveServer { $0.retention = 5_000 }
        var random = RandomDocuments(seed: 15)
        var document = random.document(id: "burst")
        try await server.put("burst", Self.body(document))
        let followed = FollowedList(server.baseURL, "burst", mode: .events)
        #expect(await followed.wait(forRevision: 1))
        // A write whose content equals the current document's makes no revision: keep the revisions made.
        var revisions = [1]
        while revisions.count < 1_001 {
            document = random.edit(document, intensity: 0.2)
            let revision = try await server.put("burst", Self.body(document))
            if revision != revisions.last { revisions.append(revision) }
        }
        #expect(await followed.wait(seconds: 60) { $0.binding.dataSource.revision == revisions.last })
        followed.stop()
        #expect(followed.revisions == revisions)
        #expect(followed.seen.dropFirst().allSatisfy { $0.update.diff != nil })
        #expect(followed.binding.batches == 1_000 && followed.binding.reloads == 1)
        #expect(followed.view.violations.isEmpty)
        for (update, shown) in followed.seen {
            let served = try await server.document("burst", revision: update.document.revision)
            #expect(shown == served, "revision \(update.document.revision)")
        }
    }

    @Test func longPollsFollowABurstAndEndOnTheServersDocument() async throws {
        let server = try LiveServer()
        var random = RandomDocuments(seed: 16)
        var document = random.document(id: "polled")
        try await server.put("polled", Self.body(document))
        let followed = FollowedList(server.baseURL, "polled", mode: .poll)
        #expect(await followed.wait(forRevision: 1))
        var last = 1
        for _ in 0..<200 {
            document = random.edit(document, intensity: 0.3)
            last = try await server.put("polled", Self.body(document))
        }
        #expect(last > 150, "a write whose content is unchanged makes no revision, but most of these change")
        #expect(await followed.wait(forRevision: last))
        followed.stop()
        let revisions = followed.revisions
        #expect(revisions.first == 1 && revisions.last == last)
        #expect(zip(revisions, revisions.dropFirst()).allSatisfy { $0 < $1 })
        for (update, shown) in followed.seen {
            #expect(shown == (try await server.document("polled", revision: update.document.revision)))
        }
        #expect(followed.view.shownItems == document.sections.map { $0.items.map(\.id) })
    }

    @Test(arguments: FollowOptions.Mode.allCases)
    func aPrunedRevisionResetsToTheCurrentDocument(mode: FollowOptions.Mode) async throws {
        let server = try LiveServer { $0.retention = 3 }
        try await server.put("pruned", ["items": [["id": "a"]]])
        var iterator = ListFollower(baseURL: server.baseURL, listID: "pruned", options: FollowOptions(mode: mode)).makeAsyncIterator()
        #expect(await iterator.next()?.document.revision == 1)
        for revision in 2...10 {
            try await server.put("pruned", ["items": .array((0..<revision).map { ["id": .string("i\($0)")] })])
        }
        let update = await iterator.next()
        guard case .reset(let reset)? = update?.change else { Issue.record("expected a reset, got \(String(describing: update))"); return }
        #expect(reset.reason == (mode == .poll ? .gone : .event))
        #expect(reset.from == 1)
        #expect(update?.document == (try await server.document("pruned")))
    }

    @Test(arguments: FollowOptions.Mode.allCases)
    func aServerRestartIsFollowedThrough(mode: FollowOptions.Mode) async throws {
        let server = try LiveServer()
        try await server.put("restart", ["items": [["id": "a"]]])
        let followed = FollowedList(server.baseURL, "restart", mode: mode)
        #expect(await followed.wait(forRevision: 1))
        server.stop()
        // Started again once the follower has met the outage (and is retrying).
        #expect(await followed.wait { !$0.retries.all.isEmpty })
        try server.start()
        try await server.put("restart", ["items": [["id": "a"], ["id": "b"]]])
        #expect(await followed.wait(forRevision: 2))
        followed.stop()
        #expect(followed.seen.last?.update.diff != nil)
        #expect(followed.view.shownItems == [["a", "b"]])
        #expect(!followed.retries.all.isEmpty)
    }

    #if canImport(Glibc)
    @Test(arguments: FollowOptions.Mode.allCases)
    func aDroppedConnectionIsReopenedFromTheRevisionHeld(mode: FollowOptions.Mode) async throws {
        let server = try LiveServer()
        let relay = try TCPRelay(to: server.port)
        try await server.put("dropped", ["items": [["id": "a"]]])
        let followed = FollowedList(relay.baseURL, "dropped", mode: mode)
        #expect(await followed.wait(forRevision: 1))
        try await server.put("dropped", ["items": [["id": "a"], ["id": "b"]]])
        #expect(await followed.wait(forRevision: 2))
        #expect(await followed.wait { _ in relay.openConnections > 0 })
        relay.dropAll()
        if mode == .events {
            // A stream cut mid-way is an error the follower sees (a cut long poll may be retried by libcurl itself).
            #expect(await followed.wait { !$0.retries.all.isEmpty })
        }
        try await server.put("dropped", ["items": [["id": "b"], ["id": "c"], ["id": "a"]]])
        #expect(await followed.wait(forRevision: 3))
        followed.stop()
        relay.close()
        #expect(followed.seen.map(\.update.document.revision) == [1, 2, 3])
        #expect(followed.seen.dropFirst().allSatisfy { $0.update.diff != nil })
        #expect(followed.view.shownItems == [["b", "c", "a"]])
    }
    #endif
}
