/// The events of one open event stream, read as the follower asks for them.
struct EventStreamReader {
    private var chunks: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    private var parser = ServerSentEventParser()
    private var ready: [ServerSentEvent] = []

    init(_ stream: TransportStream) {
        chunks = stream.chunks.makeAsyncIterator()
    }

    /// The next event; `nil` when the server closed the stream.
    /// - Throws: `FollowError.streamEnded` when the connection broke or an event is too large.
    mutating func next() async throws(FollowError) -> ServerSentEvent? {
        while ready.isEmpty {
            let chunk: [UInt8]?
            do {
                chunk = try await chunks.next()
            } catch {
                throw .streamEnded(TransportError(error).message)
            }
            guard let chunk else { return nil }
            do {
                ready = try parser.feed(chunk)
            } catch {
                throw .streamEnded(error.description)
            }
        }
        return ready.removeFirst()
    }
}
