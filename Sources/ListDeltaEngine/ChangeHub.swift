public import ListDeltaStorage
import Synchronization
public import Tracing

/// What watchers of a list are told.
public enum ListEvent: Sendable {
    /// A new revision was committed; `batch` is its diff from the previous revision, rendered once for everyone.
    case revision(WriteOutcome, batch: RenderedBody)
    /// Another instance sharing the store committed `revision` (announced by the store): watchers read what they
    /// need from the repository, whose cached head that announcement has already corrected.
    case committedElsewhere(revision: Int, trace: CommitTrace? = nil)
    /// The list was deleted.
    case deleted
    /// The server is shutting down.
    case shutdown

    /// Who wrote the revision the event brings, and when, as far as known.
    public var trace: CommitTrace? {
        switch self {
        case .revision(let outcome, _): outcome.trace
        case .committedElsewhere(_, let trace): trace
        case .deleted, .shutdown: nil
        }
    }

    /// Whether the event ends what watches the list (a deletion, the shutdown) rather than bringing a revision.
    public var isEnding: Bool {
        switch self {
        case .revision, .committedElsewhere: false
        case .deleted, .shutdown: true
        }
    }
}

/// The watchers of lists: parked long polls (told once, then forgotten) and event streams (told every event), each
/// watching one list or many under one token.
///
/// `publish` is called under the list's write lock, after the new head is in the repository, so every watcher
/// sees a list's events in revision order. A poll on many lists is told once, by the first of its lists that
/// moves, and is then unparked from all of them. The hub keeps no state for lists nobody watches: its memory is
/// bounded by the watchers (so by the open connections and the lists each names). A watcher registers *first* and
/// then checks its lists' current revisions itself: a revision committed in between is either published to it or
/// seen by that check, never lost (see `DiffRoutes`).
public final class ChangeHub: Sendable {
    /// Told the event and the list it happened to.
    public typealias Watcher = @Sendable (_ list: String, ListEvent) -> Void

    struct Watch {
        let lists: [String]
        let watcher: Watcher
        /// The trace context the watcher registered in (its request's), under which its deliveries are traced.
        let context: ServiceContext?
    }

    private struct State {
        /// For every watched list, the tokens of its polls and of its streams.
        var polls: [String: Set<Int>] = [:]
        var streams: [String: Set<Int>] = [:]
        var parked: [Int: Watch] = [:]
        var subscribed: [Int: Watch] = [:]
        var nextToken = 0
        var isShuttingDown = false

        mutating func add(_ token: Int, to lists: [String], in index: WritableKeyPath<State, [String: Set<Int>]>) {
            for list in lists { self[keyPath: index][list, default: []].insert(token) }
        }

        mutating func remove(_ token: Int, from lists: [String], in index: WritableKeyPath<State, [String: Set<Int>]>) {
            for list in lists {
                self[keyPath: index][list]?.remove(token)
                if self[keyPath: index][list]?.isEmpty == true { self[keyPath: index][list] = nil }
            }
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Parks a poll on `lists`; `nil` when the server is shutting down. Returns the token to `unpark` it.
    public func park(lists: [String], _ watcher: @escaping Watcher) -> Int? {
        register(Watch(lists: lists, watcher: watcher, context: Spans.isEnabled ? ServiceContext.current : nil), in: \.parked, indexedIn: \.polls)
    }

    /// Removes a parked poll from all its lists; `true` when it was still parked (so the caller owns its answer).
    public func unpark(token: Int) -> Bool {
        state.withLock { state in
            guard let watch = state.parked.removeValue(forKey: token) else { return false }
            state.remove(token, from: watch.lists, in: \.polls)
            return true
        }
    }

    /// Adds an event stream on `lists`; `nil` while shutting down.
    public func subscribe(lists: [String], _ watcher: @escaping Watcher) -> Int? {
        register(Watch(lists: lists, watcher: watcher, context: Spans.isEnabled ? ServiceContext.current : nil), in: \.subscribed, indexedIn: \.streams)
    }

    /// Adds `watch` under a new token to `watches` and to its lists' `index`; `nil` while shutting down.
    private func register(
        _ watch: Watch, in watches: WritableKeyPath<State, [Int: Watch]>, indexedIn index: WritableKeyPath<State, [String: Set<Int>]>
    ) -> Int? {
        state.withLock { state in
            guard !state.isShuttingDown else { return nil }
            state.nextToken += 1
            state[keyPath: watches][state.nextToken] = watch
            state.add(state.nextToken, to: watch.lists, in: index)
            return state.nextToken
        }
    }

    /// Removes an event stream from all its lists.
    public func unsubscribe(token: Int) {
        state.withLock { state in
            guard let watch = state.subscribed.removeValue(forKey: token) else { return }
            state.remove(token, from: watch.lists, in: \.streams)
        }
    }

    /// Tells every watcher of `list`: its parked polls are removed (from all their lists), its streams stay (a
    /// stream of one list ends itself when told of a deletion; a stream of many lists goes on following it).
    public func publish(list: String, _ event: ListEvent) {
        let (polls, streams): ([Watch], [Watch]) = state.withLock { state in
            // The list's polls go at once; only a poll that also watches other lists is removed from those.
            var polls: [Watch] = []
            for token in state.polls.removeValue(forKey: list) ?? [] {
                guard let watch = state.parked.removeValue(forKey: token) else { continue }
                if watch.lists.count > 1 { state.remove(token, from: watch.lists.filter { $0 != list }, in: \.polls) }
                polls.append(watch)
            }
            return (polls, (state.streams[list] ?? []).compactMap { state.subscribed[$0] })
        }
        guard !polls.isEmpty || !streams.isEmpty else { return }
        let delivery = Delivery(list: list, event: event)
        for watch in polls { delivery.deliver(to: watch) }
        for watch in streams { delivery.deliver(to: watch) }
    }

    /// Tells every watcher that the server stops, and refuses new ones.
    public func shutdown() {
        let watchers: [Watch] = state.withLock { state in
            state.isShuttingDown = true
            let all = Array(state.parked.values) + Array(state.subscribed.values)
            state = State()
            state.isShuttingDown = true
            return all
        }
        for watch in watchers { watch.watcher(watch.lists.first ?? "", .shutdown) }
    }

    /// Every list some poll or stream watches now.
    /// Whether a poll or a stream watches `list` now.
    public func isWatched(_ list: String) -> Bool {
        state.withLock { state in state.polls[list] != nil || state.streams[list] != nil }
    }

    public var watchedLists: [String] {
        state.withLock { state in Array(Set(state.polls.keys).union(state.streams.keys)) }
    }

    /// Parked polls and open streams (a watcher of many lists counts once), and the lists they watch.
    public var counts: (polls: Int, streams: Int, lists: Int) {
        state.withLock { state in
            (state.parked.count, state.subscribed.count, Set(state.polls.keys).union(state.streams.keys).count)
        }
    }
}
