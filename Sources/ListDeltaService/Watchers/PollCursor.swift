/// The cursors of polls that a shared cache collapses (docs/api.md, "Shared caches and CDNs"): intervals of the
/// server's wall clock, `I(t) = floor(t / cursorSeconds)`.
///
/// Pure: every decision takes the time as an argument, so it is tested without a clock. A poll with `cursor=K`
/// whose list does not move past `from` is held until the end of interval K or its `wait`, whichever comes first,
/// then answered empty with the next cursor `max(K + 1, I(now))`; an answer with changes carries `I(now)`. So a
/// client's cursor grows only after an empty answer (it never polls one URL twice), and every client at one
/// revision converges on one URL within an interval.
struct PollCursor: Sendable, Equatable {
    /// The largest cursor accepted (and sent): the bound of every integer in the API.
    static let maximum = Int(Int32.max)

    /// The length of one interval in seconds (at least 1).
    let cursorSeconds: Int

    /// The interval holding `time` (seconds since 1970), within `0...maximum`.
    /// - Complexity: O(1).
    func interval(at time: Double) -> Int {
        let interval = (time / Double(cursorSeconds)).rounded(.down)
        guard interval.isFinite, interval > 0 else { return 0 }
        return interval >= Double(Self.maximum) ? Self.maximum : Int(interval)
    }

    /// When interval `cursor` ends, in seconds since 1970.
    /// - Complexity: O(1).
    func end(of cursor: Int) -> Double {
        Double(cursor + 1) * Double(cursorSeconds)
    }

    /// How long a poll with `cursor` and `wait` whose list has not moved is held from `now`: until the end of the
    /// interval or the wait, whichever comes first; 0 (answer at once) when either has passed.
    /// - Complexity: O(1).
    func hold(cursor: Int, wait: Double, now: Double) -> Double {
        max(0, min(wait, end(of: cursor) - now))
    }

    /// The cursor of an answer's `next`: `I(now)` when the answer carries changes, else `max(cursor + 1, I(now))`,
    /// so that an empty answer always moves the client on to a URL it has not polled.
    /// - Complexity: O(1).
    func next(after cursor: Int, changed: Bool, now: Double) -> Int {
        let current = interval(at: now)
        return changed ? current : max(min(cursor, Self.maximum - 1) + 1, current)
    }
}
