import Synchronization

/// What watchers of a list are told.
enum ListEvent: Sendable {
    /// A new revision was committed; `batch` is its diff from the previous revision, rendered once for everyone.
    case revision(WriteOutcome, batch: RenderedBody)
    /// The list was deleted.
    case deleted
    /// The server is shutting down.
    case shutdown
}

/// The watchers of lists: parked long polls (told once, then forgotten) and event streams (told every event).
///
/// `publish` is called under the list's write lock, after the new head is in the repository, so every watcher
/// sees a list's events in revision order. The hub keeps no state for lists nobody watches: its memory is
/// bounded by the watchers (so by the open connections). A watcher registers *first* and then checks the list's
/// current revision itself: a revision committed in between is either published to it or seen by that check,
/// never lost (see `DiffRoutes`).
final class ChangeHub: Sendable {
    typealias Watcher = @Sendable (ListEvent) -> Void

    private struct State {
        var polls: [String: [Int: Watcher]] = [:]
        var streams: [String: [Int: Watcher]] = [:]
        var nextToken = 0
        var isShuttingDown = false
    }

    private let state = Mutex(State())

    /// Parks a poll on `list`; `nil` when the server is shutting down. Returns the token to `unpark` it.
    func park(list: String, _ watcher: @escaping Watcher) -> Int? {
        state.withLock { state in
            guard !state.isShuttingDown else { return nil }
            state.nextToken += 1
            state.polls[list, default: [:]][state.nextToken] = watcher
            return state.nextToken
        }
    }

    /// Removes a parked poll; `true` when it was still parked (so the caller owns its answer).
    func unpark(list: String, token: Int) -> Bool {
        state.withLock { state in
            let removed = state.polls[list]?.removeValue(forKey: token) != nil
            if state.polls[list]?.isEmpty == true { state.polls[list] = nil }
            return removed
        }
    }

    /// Adds an event stream on `list`; `nil` while shutting down.
    func subscribe(list: String, _ watcher: @escaping Watcher) -> Int? {
        state.withLock { state in
            guard !state.isShuttingDown else { return nil }
            state.nextToken += 1
            state.streams[list, default: [:]][state.nextToken] = watcher
            return state.nextToken
        }
    }

    /// Removes an event stream.
    func unsubscribe(list: String, token: Int) {
        state.withLock { state in
            state.streams[list]?[token] = nil
            if state.streams[list]?.isEmpty == true { state.streams[list] = nil }
        }
    }

    /// Tells every watcher of `list`; parked polls are removed, streams stay (a stream of one list ends itself when
    /// told of a deletion; a stream of many lists goes on following it).
    func publish(list: String, _ event: ListEvent) {
        let (polls, streams): ([Watcher], [Watcher]) = state.withLock { state in
            let polls = state.polls.removeValue(forKey: list).map { Array($0.values) } ?? []
            return (polls, state.streams[list].map { Array($0.values) } ?? [])
        }
        for watcher in polls { watcher(event) }
        for watcher in streams { watcher(event) }
    }

    /// Tells every watcher that the server stops, and refuses new ones.
    func shutdown() {
        let watchers: [Watcher] = state.withLock { state in
            state.isShuttingDown = true
            let all = state.polls.values.flatMap(\.values) + state.streams.values.flatMap(\.values)
            state.polls = [:]
            state.streams = [:]
            return all
        }
        for watcher in watchers { watcher(.shutdown) }
    }

    /// Parked polls, open streams, and the lists they watch, for metrics and tests.
    var counts: (polls: Int, streams: Int, lists: Int) {
        state.withLock { state in
            (state.polls.values.reduce(0) { $0 + $1.count }, state.streams.values.reduce(0) { $0 + $1.count },
             Set(state.polls.keys).union(state.streams.keys).count)
        }
    }
}
