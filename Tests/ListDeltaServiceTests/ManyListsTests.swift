import ListDeltaApplication
import Foundation
import HTTPServer
import ListDeltaCoreTestSupport
import ListDeltaEngine
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// Many lists over one request, in-process: the poll that wakes on any list, the stream that follows them all.
@Suite struct ManyListsTests {
    @Test func pollAnswersAtOnceWithTheDiffsAndResetsOfTheListsThatMoved() throws {
        let test = try TestService()
        test.put("a", items: ["1"])
        test.put("a", items: ["1", "2"])
        test.put("b", items: ["x"])
        let answer = try #require(test.answer(.GET, "/v1/diffs?lists=a:1,b:1,gone:4,new:0&wait=5", within: 1))
        #expect(answer.status == 200)
        let diffs = try #require(answer.json?["diffs"] as? [[String: Any]])
        #expect(diffs.map { $0["id"] as? String } == ["a"])
        #expect(diffs.first?["from"] as? Int == 1)
        #expect(diffs.first?["to"] as? Int == 2)
        let resets = try #require(answer.json?["resets"] as? [[String: Any]])
        #expect(resets.map { $0["id"] as? String } == ["gone"])
        #expect(resets.first?["current"] as? Int == 0)
    }

    @Test func parkedPollWakesOnAWriteToAnyOfItsListsAndLeavesNothingParked() throws {
        let test = try TestService()
        for id in ["a", "b", "c"] { test.put(id, items: ["x"]) }
        let poll = test.send(.GET, "/v1/diffs?lists=a:1,b:1,c:1,later:0&wait=10")
        #expect(eventually { test.app.hub.counts.polls == 1 })
        #expect(test.app.hub.counts.lists == 4)
        #expect(poll.immediateResponse == nil)
        test.put("later", items: ["y"])
        let answer = try #require(poll.response(within: 2))
        let diffs = try #require(answer.json?["diffs"] as? [[String: Any]])
        #expect(diffs.map { $0["id"] as? String } == ["later"])
        #expect(diffs.first?["to"] as? Int == 1)
        #expect(test.app.hub.counts.polls == 0)
    }

    @Test func parkedPollEndsEmptyAfterItsWaitAndIsForgottenWhenItsClientLeaves() throws {
        let test = try TestService()
        test.put("a", items: ["x"])
        let timed = try #require(test.answer(.GET, "/v1/diffs?lists=a:1,b:0&wait=0.2", within: 3))
        #expect(timed.json?["diffs"] as? [Any] == nil || (timed.json?["diffs"] as? [Any])?.isEmpty == true)
        #expect((timed.json?["resets"] as? [Any])?.isEmpty == true)
        let gone = test.send(.GET, "/v1/diffs?lists=a:1,b:0&wait=10")
        #expect(eventually { test.app.hub.counts.polls == 1 })
        gone.disconnect()
        #expect(test.app.hub.counts.polls == 0)
    }

    /// A write racing the parking of a many-lists poll is never missed: the poll answers at once, not at its wait.
    @Test func writeRacingTheParkingIsNeverMissed() throws {
        let test = try TestService()
        test.put("q", items: ["a"])
        test.put("r", items: ["a"])
        for round in 1...100 {
            let poll = test.sendFromAnotherThread("/v1/diffs?lists=q:1,r:\(round)&wait=10")
            #expect(test.put("r", items: ["a", "r\(round)"]) == round + 1)
            let answer = try #require(poll.response(within: 3), "round \(round): the poll missed the write")
            let diffs = try #require(answer.json?["diffs"] as? [[String: Any]])
            #expect(diffs.map { $0["to"] as? Int } == [round + 1])
        }
        #expect(eventually { test.app.hub.counts.polls == 0 })
    }

    @Test func streamFollowsEveryListResetsOneAndGoesOn() throws {
        let test = try TestService()
        test.put("a", items: ["x"])
        test.put("b", items: ["x"])
        let events = test.send(.GET, "/v1/events?lists=a:0,b:1,c:0")
        let stream = try #require(events.stream())
        #expect(eventually { stream.text.contains("id: a:1,b:1,c:0") })
        #expect(test.app.hub.counts.streams == 1)
        #expect(test.app.hub.counts.lists == 3)
        test.put("c", items: ["y"])
        #expect(eventually { stream.text.contains("id: a:1,b:1,c:1") })
        #expect(test.answer(.DELETE, "/v1/lists/b")?.status == 204)
        #expect(eventually { stream.text.contains("event: reset\nid: a:1,b:0,c:1\ndata: {\"id\":\"b\",\"current\":0}") })
        test.put("a", items: ["x", "z"])
        #expect(eventually { stream.text.contains("id: a:2,b:0,c:1") })
        // b, created again, comes back as a diff from 0 on the same stream.
        let recreated = try #require(test.put("b", items: ["n"]))
        #expect(eventually { stream.text.contains("id: a:2,b:\(recreated),c:1") })
        #expect(stream.text.contains("\"id\":\"b\",\"from\":0,\"to\":\(recreated)"))
        #expect(!stream.isFinished)
        events.disconnect()
        #expect(eventually { test.app.hub.counts.streams == 0 })
    }

    @Test func streamResumesEveryListFromLastEventID() throws {
        let test = try TestService()
        for _ in 1...3 { test.put("a", items: ["x\(Int.random(in: 0...1_000_000))"]) }
        test.put("b", items: ["x"])
        let events = test.send(.GET, "/v1/events?lists=a:0,b:0", headers: ["Last-Event-ID": "a:2,b:1"])
        let stream = try #require(events.stream())
        #expect(eventually { stream.text.contains("id: a:3,b:1") })
        #expect(stream.text.contains("\"from\":2,\"to\":3"))
        #expect(!stream.text.contains("\"id\":\"b\""))
        events.disconnect()
    }

    @Test func oneListStreamStillEndsOnDeletion() throws {
        let test = try TestService()
        test.put("solo", items: ["x"])
        let events = test.send(.GET, "/v1/lists/solo/events?from=1")
        let stream = try #require(events.stream())
        #expect(test.answer(.DELETE, "/v1/lists/solo")?.status == 204)
        #expect(eventually { stream.isFinished })
        #expect(stream.text.contains("event: reset\ndata: {\"current\":0}"))
        #expect(eventually { test.app.hub.counts.streams == 0 })
    }
}
