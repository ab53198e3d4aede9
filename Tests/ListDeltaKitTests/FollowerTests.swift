import Foundation
import ListDeltaCore
import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaKit

/// The follower's behaviour against a scripted transport: no socket, every path deterministic.
@Suite struct FollowerTests {
    let base = URL(string: "http://example.test")!

    func follower(_ transport: ScriptedTransport, mode: FollowOptions.Mode = .poll, retries: RetryLog? = nil) -> ListFollower {
        var options = FollowOptions(mode: mode)
        options.backoff = Backoff.Configuration(initial: .milliseconds(2), maximum: .milliseconds(8))
        if let retries { options.onRetry = { error, _ in retries.record(error) } }
        return ListFollower(baseURL: base, listID: "a", options: options, transport: transport)
    }

    /// The first `count` updates.
    func updates(_ follower: ListFollower, _ count: Int) async -> [ListUpdate] {
        var iterator = follower.makeAsyncIterator()
        var result: [ListUpdate] = []
        while result.count < count, let update = await iterator.next() { result.append(update) }
        return result
    }

    /// A query's event stream moves on silently past base revisions that leave the result as it was: its next diff
    /// starts from a later base revision than the one held, and is applied to the result held, as from it.
    @Test func aQueryStreamsDiffFromALaterBaseRevisionIsTakenFromTheRevisionHeld() async {
        let r1 = Served.list(1, ["a", "b"]), r2 = Served.list(2, ["a", "b"]), r3 = Served.list(3, ["c", "a", "b"])
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .openStream([Served.event("diff", Served.diff(r2, r3), id: 3)]),
            .answer(200, Served.document(r3)), // fetched only by a follower that took the diff for a mismatch
        ])
        var options = FollowOptions(mode: .events)
        options.query = #"{"limit":5}"#
        let retries = RetryLog()
        options.onRetry = { error, _ in retries.record(error) }
        let got = await updates(ListFollower(baseURL: base, listID: "a", options: options, transport: transport), 2)
        #expect(got.map(\.document) == [r1, r3])
        #expect(got[1].diff?.from == 1 && got[1].diff?.to == 3, "a diff from the revision held: no reset")
        #expect(retries.all.isEmpty)

        // Following the whole list, the same diff does not fit what is held: the document is fetched again.
        let whole = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .openStream([Served.event("diff", Served.diff(r2, r3), id: 3)]),
            .answer(200, Served.document(r3)),
        ])
        let reset = await updates(follower(whole, mode: .events), 2)
        guard case .reset(let why)? = reset.last?.change else { Issue.record("expected a reset, got \(reset)"); return }
        #expect(why.reason == .mismatch)
    }

    @Test func longPollsApplyEachDiffAndSkipTimeouts() async {
        let r1 = Served.list(1, ["a", "b"]), r2 = Served.list(2, ["b", "c", "a"]), r3 = Served.list(3, ["c"])
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .answer(200, Served.diff(r1, r2)),
            .answer(200, Served.diff(r2, r2)),
            .answer(200, Served.diff(r2, r3)),
        ])
        let got = await updates(follower(transport), 3)
        #expect(got.map(\.document) == [r1, r2, r3])
        #expect(got[0].change == .initial)
        #expect(got[1].diff == ListDiff(from: r1, to: r2))
        #expect(transport.requests == [
            "/v1/lists/a", "/v1/lists/a/diff?from=1&wait=25", "/v1/lists/a/diff?from=2&wait=25",
            "/v1/lists/a/diff?from=2&wait=25",
        ])
    }

    /// Each poll after the first is the one the previous answer named, verbatim; a `next` that starts from another
    /// revision than the one held (after a reset) is not used.
    @Test func longPollsFollowTheNextLinkVerbatim() async {
        let r1 = Served.list(1, ["a", "b"]), r2 = Served.list(2, ["b", "c", "a"]), r5 = Served.list(5, ["c"]), r6 = Served.list(6, [])
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .linked(200, Served.diff(r1, r2), next: "/v1/lists/a/diff?from=2&wait=25&cursor=40"),
            .linked(200, Served.diff(r2, r2), next: "/v1/lists/a/diff?from=2&wait=25&cursor=41"),
            .linked(410, Served.problem(410, "gone", current: 5), next: "/v1/lists/a/diff?from=2&wait=25&cursor=99"),
            .answer(200, Served.document(r5)),
            .linked(200, Served.diff(r5, r6), next: "/v1/lists/a/diff?from=6&wait=25&cursor=42"),
        ])
        let got = await updates(follower(transport), 4)
        #expect(got.map(\.document) == [r1, r2, r5, r6])
        #expect(transport.requests == [
            "/v1/lists/a", "/v1/lists/a/diff?from=1&wait=25", "/v1/lists/a/diff?from=2&wait=25&cursor=40",
            "/v1/lists/a/diff?from=2&wait=25&cursor=41", "/v1/lists/a", "/v1/lists/a/diff?from=5&wait=25",
        ])
    }

    @Test func goneRevisionFetchesTheDocumentAgain() async {
        let r1 = Served.list(1, ["a"]), r9 = Served.list(9, ["z"])
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .answer(410, Served.problem(410, "revision 1 is no longer retained", current: 9)),
            .answer(200, Served.document(r9)),
        ])
        let got = await updates(follower(transport), 2)
        #expect(got[1].document == r9)
        #expect(got[1].change == .reset(ListReset(reason: .gone, detail: "revision 1 is gone (current 9)", from: 1)))
        #expect(transport.requests.last == "/v1/lists/a")
    }

    @Test func resetsInARowWithoutADiffAreSpacedByBackoffAndReported() async {
        let r1 = Served.list(1, ["a"]), r2 = Served.list(2, ["a", "b"])
        let retries = RetryLog()
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .answer(410, Served.problem(410, "gone", current: 1)),
            .answer(200, Served.document(r1)),
            .answer(410, Served.problem(410, "gone", current: 1)),
            .answer(200, Served.document(r1)),
            .answer(200, Served.diff(r1, r2)),
            .answer(410, Served.problem(410, "gone", current: 2)),
            .answer(200, Served.document(r2)),
        ])
        let got = await updates(follower(transport, retries: retries), 5)
        #expect(got.map(\.document.revision) == [1, 1, 1, 2, 2])
        // The first reload is at once; the second, with no diff since the first, waits and says so. A diff in
        // between starts the count again.
        let gone = ListReset(reason: .gone, detail: "revision 1 is gone (current 1)", from: 1)
        #expect(retries.all == [.repeatedReset(gone, count: 1)])
    }

    @Test func aDiffWhoseCountsDoNotFitIsNotAppliedButRefetched() async {
        let r1 = Served.list(1, ["a", "b"]), r2 = Served.list(2, ["a"])
        var wrong = ListDiff(from: r1, to: r2)
        wrong.fromCounts = [5]
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .answer(200, JSONWriter.string(of: wrong.jsonValue)),
            .answer(200, Served.document(r2)),
        ])
        let got = await updates(follower(transport), 2)
        guard case .reset(let reset) = got[1].change else { Issue.record("expected a reset, got \(got[1].change)"); return }
        #expect(reset.reason == .check)
        #expect(reset.detail.contains("counts.from [5]"))
        #expect(got[1].document == r2)
    }

    @Test func aDiffFromAnotherRevisionIsAMismatch() async {
        let r1 = Served.list(1, ["a"]), r2 = Served.list(2, ["b"]), r3 = Served.list(3, ["c"])
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .answer(200, Served.diff(r2, r3)),
            .answer(200, Served.document(r3)),
        ])
        let got = await updates(follower(transport), 2)
        guard case .reset(let reset) = got[1].change else { Issue.record("expected a reset"); return }
        #expect(reset.reason == .mismatch)
        #expect(reset.from == 1)
    }

    @Test func networkErrorsAndServerErrorsAreRetriedWithBackoff() async {
        let r1 = Served.list(1, ["a"]), r2 = Served.list(2, ["a", "b"])
        let retries = RetryLog()
        let transport = ScriptedTransport([
            .failure("connection refused"),
            .answer(503, Served.problem(503, "busy")),
            .answer(200, Served.document(r1)),
            .answer(200, "not json"),
            .answer(200, Served.diff(r1, r2)),
        ])
        let got = await updates(follower(transport, retries: retries), 2)
        #expect(got.map(\.document) == [r1, r2])
        let seen = retries.all
        #expect(seen.count == 3)
        #expect(Array(seen.prefix(2)) == [.transport(TransportError("connection refused")), .status(503, detail: "busy")])
        guard case .unreadable? = seen.last else { Issue.record("expected an unreadable diff, got \(seen)"); return }
    }

    @Test func aDeletedListIsRetriedUntilItExistsAgain() async {
        let r1 = Served.list(1, ["a"]), again = Served.list(1, ["new"])
        let retries = RetryLog()
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .answer(404, Served.problem(404, "no list a")),
            .answer(404, Served.problem(404, "no list a")),
            .answer(200, Served.document(again)),
        ])
        let got = await updates(follower(transport, retries: retries), 2)
        #expect(got[1].change == .reset(ListReset(reason: .missing, detail: "the list was not found", from: 1)))
        #expect(got[1].document == again)
        #expect(retries.all == [.status(404, detail: "no list a"), .status(404, detail: "no list a")])
    }

    @Test func eventStreamAppliesDiffsSplitAcrossChunksAndReopensFromTheRevisionHeld() async {
        let r1 = Served.list(1, ["a"]), r2 = Served.list(2, ["a", "b"]), r3 = Served.list(3, ["b"])
        let event = Served.event("diff", Served.diff(r1, r2), id: 2)
        let middle = event.index(event.startIndex, offsetBy: event.count / 2)
        let retries = RetryLog()
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .stream([": keep-alive\n\n", String(event[..<middle]), String(event[middle...])], failing: true),
            .openStream([Served.event("diff", Served.diff(r2, r3), id: 3)]),
        ])
        let got = await updates(follower(transport, mode: .events, retries: retries), 3)
        #expect(got.map(\.document) == [r1, r2, r3])
        #expect(transport.requests == ["/v1/lists/a", "/v1/lists/a/events?from=1", "/v1/lists/a/events?from=2"])
        #expect(retries.all == [.streamEnded("connection reset")])
    }

    @Test func resetEventFetchesTheDocumentAndReopensFromIt() async {
        let r1 = Served.list(1, ["a"]), r5 = Served.list(5, ["e"]), r6 = Served.list(6, ["e", "f"])
        let transport = ScriptedTransport([
            .answer(200, Served.document(r1)),
            .openStream([Served.event("reset", "{\"current\":5}")]),
            .answer(200, Served.document(r5)),
            .openStream([Served.event("diff", Served.diff(r5, r6), id: 6)]),
        ])
        let got = await updates(follower(transport, mode: .events), 3)
        #expect(got[1].change == .reset(ListReset(reason: .event, detail: "event: reset (current 5)", from: 1)))
        #expect(got.map(\.document) == [r1, r5, r6])
        #expect(transport.requests == [
            "/v1/lists/a", "/v1/lists/a/events?from=1", "/v1/lists/a", "/v1/lists/a/events?from=5",
        ])
    }

    @Test func cancellingTheTaskEndsTheSequence() async {
        let r1 = Served.list(1, ["a"])
        let transport = ScriptedTransport([.answer(200, Served.document(r1))])
        let follower = follower(transport)
        let task = Task {
            var seen = 0
            for await _ in follower { seen += 1 }
            return seen
        }
        // Cancelled once the follower, having handed over the document, waits in its first poll.
        let polled = await waitFor { transport.requests.count == 2 }
        #expect(polled)
        task.cancel()
        #expect(await task.value == 1)
        #expect(transport.requests == ["/v1/lists/a", "/v1/lists/a/diff?from=1&wait=25"])
    }

    @Test func backoffDelaysAreJitteredWithinTheDoublingCap() {
        var backoff = Backoff(Backoff.Configuration(initial: .milliseconds(100), maximum: .milliseconds(1000)), random: SplitMix64(seed: 7))
        var caps: [Duration] = []
        for _ in 0..<8 { caps.append(backoff.next()) }
        let expectedCaps: [Duration] = [100, 200, 400, 800, 1000, 1000, 1000, 1000].map { .milliseconds($0) }
        for (delay, cap) in zip(caps, expectedCaps) {
            #expect(delay >= cap / 2 && delay <= cap, "\(delay) not in [\(cap / 2), \(cap)]")
        }
        backoff.reset()
        #expect(backoff.next() <= .milliseconds(100))
    }
}
