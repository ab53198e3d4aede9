import Dispatch
public import HTTPServer
import Synchronization

/// An in-memory responder: records the answer (or the stream's chunks) of one request handled without a socket.
public final class RecordingResponder: HTTPResponding {
    private struct State {
        var response: HTTPResponse?
        var stream: RecordingStream?
        var closed = false
        var closeHandler: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let answered = DispatchSemaphore(value: 0)

    @discardableResult
    public func respond(_ response: HTTPResponse) -> Bool {
        let taken = state.withLock { state in
            guard state.response == nil, state.stream == nil, !state.closed else { return false }
            state.response = response
            return true
        }
        if taken { answered.signal() }
        return taken
    }

    public func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPStreaming)? {
        let stream: RecordingStream? = state.withLock { state in
            guard state.response == nil, state.stream == nil, !state.closed else { return nil }
            let stream = RecordingStream(status: status, headers: headers)
            state.stream = stream
            return stream
        }
        if stream != nil { answered.signal() }
        return stream
    }

    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let callNow = state.withLock { state in
            state.closeHandler = handler
            return state.closed
        }
        if callNow { disconnect() }
    }

    public var isClosed: Bool { state.withLock { $0.closed } }

    /// The client goes away: the close handler runs once, later answers are refused.
    public func disconnect() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            state.closed = true
            defer { state.closeHandler = nil }
            return state.closeHandler
        }
        state.withLock { $0.stream }?.close()
        handler?()
    }

    /// The response, waiting up to `seconds` for it; `nil` if none came.
    public func response(within seconds: Double = 5) -> HTTPResponse? {
        if let response = state.withLock({ $0.response }) { return response }
        guard answered.wait(timeout: .now() + seconds) == .success else { return nil }
        answered.signal()
        return state.withLock { $0.response }
    }

    /// The stream, waiting up to `seconds` for it to start.
    public func stream(within seconds: Double = 5) -> RecordingStream? {
        if let stream = state.withLock({ $0.stream }) { return stream }
        guard answered.wait(timeout: .now() + seconds) == .success else { return nil }
        answered.signal()
        return state.withLock { $0.stream }
    }

    /// The answer if one was given already, without waiting.
    public var immediateResponse: HTTPResponse? { state.withLock { $0.response } }
}

/// The chunks of a recorded stream.
public final class RecordingStream: HTTPStreaming {
    public let status: Int
    public let headers: HTTPHeaders
    private let state = Mutex<(chunks: [[UInt8]], finished: Bool, closed: Bool)>(([], false, false))

    public init(status: Int, headers: HTTPHeaders) {
        self.status = status
        self.headers = headers
    }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.closed else { return false }
            state.chunks.append(bytes)
            return true
        }
    }

    public func finish() { state.withLock { $0.finished = true } }

    public var isClosed: Bool { state.withLock { $0.closed } }

    public func close() { state.withLock { $0.closed = true } }

    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Everything written so far, as text.
    public var text: String { String(decoding: state.withLock { $0.chunks }.joined(), as: UTF8.self) }
}
