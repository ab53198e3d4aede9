import Testing
@testable import ListDeltaService

/// The cursors of collapsible polls, decided without a clock: every time is an argument.
@Suite struct PollCursorTests {
    let cursor = PollCursor(cursorSeconds: 20)

    @Test func intervalsAreTheClockDividedByTheirLength() {
        #expect(cursor.interval(at: 0) == 0)
        #expect(cursor.interval(at: 19.999) == 0)
        #expect(cursor.interval(at: 20) == 1)
        #expect(cursor.interval(at: 1_795_000_123.5) == 89_750_006)
        #expect(cursor.end(of: 89_750_006) == 1_795_000_140)
        #expect(cursor.interval(at: -5) == 0)
        #expect(PollCursor(cursorSeconds: 1).interval(at: 1e12) == PollCursor.maximum)
    }

    /// Held until the end of the interval or the wait, whichever comes first; at once once either has passed.
    @Test(arguments: [
        (100, 30.0, 2_000.0, 20.0),  // interval 100 ends at 2020: 20 s left, less than the wait
        (100, 5.0, 2_000.0, 5.0),  // the wait ends first
        (100, 30.0, 2_019.5, 0.5),  // near the interval's end
        (100, 30.0, 2_020.0, 0.0),  // the interval is over
        (99, 30.0, 2_000.0, 0.0),  // an old cursor: at once
        (100, 0.0, 2_000.0, 0.0),  // no wait: at once
        (1_000, 30.0, 2_000.0, 30.0),  // a cursor far ahead: the wait bounds it
    ])
    func holdsUntilTheIntervalOrTheWaitEnds(requested: Int, wait: Double, now: Double, expected: Double) {
        #expect(cursor.hold(cursor: requested, wait: wait, now: now) == expected)
    }

    /// An empty answer moves the client on (never the same URL twice); changes carry the current interval.
    @Test func emptyAnswersMoveOnAndChangesCarryTheCurrentInterval() {
        #expect(cursor.next(after: 100, changed: false, now: 2_020) == 101)  // held to the end of 100
        #expect(cursor.next(after: 100, changed: false, now: 2_005) == 101)  // a short wait ran out within 100
        #expect(cursor.next(after: 100, changed: false, now: 2_110) == 105)  // an old cursor catches up
        #expect(cursor.next(after: 500, changed: false, now: 2_005) == 501)  // ahead: still moves on
        #expect(cursor.next(after: 500, changed: true, now: 2_005) == 100)
        #expect(cursor.next(after: 90, changed: true, now: 2_005) == 100)
        #expect(cursor.next(after: PollCursor.maximum, changed: false, now: 2_005) == PollCursor.maximum)
    }

    /// Two clients at one revision converge on one cursor within an interval, whatever their waits and cursors.
    @Test func clientsConvergeWithinAnInterval() {
        let now = 2_007.0
        let fromEmpty = cursor.next(after: cursor.interval(at: now) - 3, changed: false, now: now)
        let fromChange = cursor.next(after: 42, changed: true, now: now)
        let fromNone = cursor.next(after: cursor.interval(at: now - 20), changed: false, now: now)
        #expect(fromEmpty == fromChange && fromChange == fromNone && fromNone == 100)
    }

    @Test func theNextLinkIsCanonical() {
        let plain = NextPollLink(listID: "inbox", from: 8, format: nil, wait: nil, cursor: 100)
        #expect(plain.fieldValue == #"</v1/lists/inbox/diff?from=8&cursor=100>; rel="next""#)
        let full = NextPollLink(listID: "a.b-c_d", from: 0, format: "json-patch", wait: "2.5", cursor: 7)
        #expect(full.target == "/v1/lists/a.b-c_d/diff?from=0&format=json-patch&wait=2.5&cursor=7")
    }
}
