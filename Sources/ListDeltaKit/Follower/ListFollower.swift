public import Foundation
import ListDeltaCore

/// Follows one list of a ListDelta server: an `AsyncSequence` of updates, each the document the client now
/// holds with the batch diff that led to it (or the reason it was fetched whole).
///
/// ```swift
/// let follower = ListFollower(baseURL: URL(string: "http://127.0.0.1:8080")!, listID: "groceries")
/// for await update in follower {
///     binding.apply(update)          // performs the batch on a UICollectionView
/// }
/// ```
///
/// Behaviour, as client.js's `ListFollower`:
/// - it fetches the document, then asks for changes with long polls (`mode: .poll`) or the event stream
///   (`mode: .events`), always from the revision it holds;
/// - each diff's `from` and `counts.from` are checked against the document held before it is applied; a diff that
///   does not fit, a 410, a 404 or an `event: reset` fetches the document again, reported as `.reset` with its
///   reason;
/// - network errors and unexpected answers are retried with capped exponential backoff and jitter
///   (`FollowOptions.backoff`, reported to `onRetry`); a broken event stream is reopened from the revision held;
/// - cancelling the task that iterates ends the sequence (`next()` returns `nil`) and closes the connection.
///
/// Each iterator is a follower of its own, with its own document and connection.
public struct ListFollower: AsyncSequence, Sendable {
    public typealias Element = ListUpdate
    public typealias Failure = Never

    /// The server's root URL.
    public let baseURL: URL
    /// The list followed.
    public let listID: String
    /// How changes are asked for.
    public let options: FollowOptions
    private let transport: any ListTransport

    /// A follower of `listID` on the server at `baseURL`, over URLSession unless another transport is given.
    public init(
        baseURL: URL, listID: String, options: FollowOptions = FollowOptions(),
        transport: any ListTransport = URLSessionTransport()
    ) {
        self.baseURL = baseURL
        self.listID = listID
        self.options = options
        self.transport = transport
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(session: FollowSession(
            endpoints: ListEndpoints(baseURL: baseURL, listID: listID), listID: listID, options: options,
            transport: transport))
    }

    /// Pulls updates: each `next()` asks the server until there is one.
    public struct Iterator: AsyncIteratorProtocol {
        private var session: FollowSession
        private var finished = false

        init(session: FollowSession) {
            self.session = session
        }

        /// Follows `query` from now on (a live query's JSON text; `nil`: the whole list), by the diff from the
        /// current result to the new one: apply the update it returns as any other, and the view animates the
        /// change (growing `limit` inserts the next page, moving `offset` scrolls the window). `nil` when the
        /// document is to be fetched again (the next `next()` does it, with the new query).
        /// - Throws: ``FollowError`` when the server refuses the query or cannot be reached; the follower goes on
        ///   with the query it had.
        public mutating func setQuery(_ query: String?) async throws(FollowError) -> ListUpdate? {
            try await session.setQuery(query)
        }

        /// The next update; `nil` once the iterating task is cancelled (and from then on).
        public mutating func next() async -> ListUpdate? {
            guard !finished else { return nil }
            if let update = await session.next() { return update }
            finished = true
            return nil
        }
    }
}
