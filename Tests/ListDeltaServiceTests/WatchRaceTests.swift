import ListDeltaServer
import ListDeltaApplication
import Foundation
import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaEngine
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// The races that matter between writes and watchers, in-process.
@Suite struct WatchRaceTests {
    /// A long poll and a write at the same moment: the poll always learns of the write at once (never waits
    /// for its timeout), whichever comes first.
    @Test func writeAndLongPollAtTheSameTime() throws {
        let test = try TestService()
        test.put("race", items: ["a"])
        for round in 1...150 {
            let revision = round
            let poll = test.sendFromAnotherThread("/v1/lists/race/diff?from=\(revision)&wait=10")
            let written = test.put("race", items: ["a", "r\(round)"])
            #expect(written == revision + 1)
            let answer = try #require(poll.response(within: 3), "round \(round): the poll missed the write")
            #expect(answer.status == 200)
            #expect(answer.json?["to"] as? Int == revision + 1)
        }
        #expect(test.app.hub.counts.polls == 0)
        #expect(test.app.hub.counts.lists == 0)
    }

    /// A watched list whose head and documents were evicted from memory still wakes its poll and stream with
    /// the right diff.
    @Test func evictionOfAWatchedList() throws {
        let test = try TestService {
            $0.cachedLists = 2
            $0.cacheBytes = 0
        }
        test.put("watched", items: ["a"])
        let poll = test.send(.GET, "/v1/lists/watched/diff?from=1&wait=10")
        let events = test.send(.GET, "/v1/lists/watched/events?from=1")
        let stream = try #require(events.stream())
        for index in 0..<10 { test.put("other\(index)", items: ["x"]) }
        #expect(test.app.repository.cachedHead("watched") == nil)
        #expect(poll.immediateResponse == nil)
        #expect(test.put("watched", items: ["a", "b"]) == 2)
        let woken = try #require(poll.response())
        #expect(woken.json?["from"] as? Int == 1)
        #expect(woken.json?["to"] as? Int == 2)
        #expect(eventually { stream.text.contains("id: 2") })
        #expect(test.put("watched", items: ["b"]) == 3)
        #expect(eventually { stream.text.contains("id: 3") })
        let text = stream.text
        #expect(text.range(of: "id: 2")!.lowerBound < text.range(of: "id: 3")!.lowerBound)
        events.disconnect()
        #expect(eventually { test.app.hub.counts.streams == 0 })
    }

    /// News of a revision the poll already has (another instance's announcement that arrived after the poll read
    /// the head) leaves it parked: it still answers the next revision, not an early empty diff.
    @Test func newsOfARevisionThePollHasLeavesItParked() throws {
        let test = try TestService()
        test.put("told", items: ["a"])
        let poll = test.send(.GET, "/v1/lists/told/diff?from=1&wait=10")
        #expect(eventually { test.app.hub.counts.polls == 1 })
        test.app.hub.publish(list: "told", .committedElsewhere(revision: 1))
        #expect(eventually { test.app.hub.counts.polls == 1 })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(poll.immediateResponse == nil, "answered early: \(poll.immediateResponse?.json ?? [:])")
        #expect(test.put("told", items: ["a", "b"]) == 2)
        let woken = try #require(poll.response(within: 3))
        #expect(woken.json?["from"] as? Int == 1)
        #expect(woken.json?["to"] as? Int == 2)
    }

    /// A poll whose client left is forgotten; a poll that times out gets the empty diff.
    @Test func leftAndTimedOutPolls() throws {
        let test = try TestService()
        test.put("quiet", items: ["a"])
        let gone = test.send(.GET, "/v1/lists/quiet/diff?from=1&wait=10")
        #expect(eventually { test.app.hub.counts.polls == 1 })
        gone.disconnect()
        #expect(test.app.hub.counts.polls == 0)
        let timed = try #require(test.answer(.GET, "/v1/lists/quiet/diff?from=1&wait=0.2", within: 3))
        #expect(timed.json?["from"] as? Int == 1)
        #expect(timed.json?["to"] as? Int == 1)
    }
}

