public import Foundation

/// A request a follower or a writer sends: the method, the URL, its headers, the body and how long the connection
/// may stay silent.
public struct TransportRequest: Sendable, Equatable {
    /// `GET` for what a follower sends; `PATCH` or `PUT` for a writer's writes.
    public var method: String
    /// The full URL, query included.
    public var url: URL
    /// Request headers (`Accept`, and whatever `FollowOptions.headers` adds).
    public var headers: [String: String]
    /// Seconds the connection may go without receiving a byte before the request fails (URLSession's
    /// `timeoutInterval`: an idle timeout, not a deadline).
    public var idleTimeout: Double
    /// The body; `nil` for none.
    public var body: [UInt8]?

    /// Creates a request.
    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: [UInt8]? = nil, idleTimeout: Double = 60) {
        self.method = method
        self.url = url
        self.body = body
        self.headers = headers
        self.idleTimeout = idleTimeout
    }
}

/// A whole answer: status, headers (names lowercased) and body.
public struct TransportResponse: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body, decoded from any content coding.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// An answer whose body arrives while it is read: an event stream.
public struct TransportStream: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The body in chunks as they arrive; it ends when the server closes, fails when the connection breaks.
    /// Dropping the last iterator (or cancelling its task) closes the connection.
    public var chunks: AsyncThrowingStream<[UInt8], any Error>

    /// Creates a stream.
    public init(status: Int, chunks: AsyncThrowingStream<[UInt8], any Error>) {
        self.status = status
        self.chunks = chunks
    }
}

/// A request that did not get an answer: no connection, a timeout, a broken connection, a cancellation.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// Wraps any error a networking library throws.
    public init(_ error: any Error) {
        self.message = (error as? TransportError)?.message ?? String(describing: error)
    }

    public var description: String { message }
}

/// How a follower and a writer talk HTTP: the seam between the follower's logic and the network.
///
/// `URLSessionTransport` is the real one (URLSession on Apple platforms, FoundationNetworking on Linux); tests
/// pass a scripted one, so every path of the follower runs without a socket.
public protocol ListTransport: Sendable {
    /// Sends `request` and returns the whole answer, whatever its status.
    /// - Throws: `TransportError` when there is no answer. Cancelling the calling task cancels the request.
    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse

    /// Sends `request` and returns once the status is known; the body follows in `chunks`.
    /// - Throws: `TransportError` when there is no answer. Cancelling the calling task cancels the request.
    func stream(_ request: TransportRequest) async throws(TransportError) -> TransportStream
}
