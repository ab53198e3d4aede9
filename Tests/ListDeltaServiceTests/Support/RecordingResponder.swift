import Dispatch
import HTTPServer
import Synchronization

/// An in-memory responder: records the answer (or the stream's chunks) of one request handled without a socket.
final class RecordingResponder: HTTPResponding {
    private struct State {
        var response: HTTPResponse?
        var stream: RecordingStream?
        var closed = false
        var closeHandler: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let answered = DispatchSemaphore(value: 0)

    @discardableResult
    func respond(_ response: HTTPResponse) -> Bool {
        let taken = state.withLock { state in
            guard state.response == nil, state.stream == nil, !state.closed else { return false }
            state.response = response
            return true
        }
        if taken { answered.signal() }
        return taken
    }

    func startStream(status: Int, headers: HTTPHeaders) -> (any HTTPStreaming)? {
        let stream: RecordingStream? = state.withLock { state in
            guard state.response == nil, state.stream == nil, !state.closed else { return nil }
            let stream = RecordingStream(status: status, headers: headers)
            state.stream = stream
            return stream
        }
        if stream != nil { answered.signal() }
        return stream
    }

    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let callNow = state.withLock { state in
            state.closeHandler = handler
            return state.closed
        }
        if callNow { disconnect() }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// The client goes away: the close handler runs once, later answers are refused.
    func disconnect() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            state.closed = true
            defer { state.closeHandler = nil }
            return state.closeHandler
        }
        state.withLock { $0.stream }?.close()
        handler?()
    }

    /// The response, waiting up to `seconds` for it; `nil` if none came.
    func response(within seconds: Double = 5) -> HTTPResponse? {
        if let response = state.withLock({ $0.response }) { return response }
        guard answered.wait(timeout: .now() + seconds) == .success else { return nil }
        answered.signal()
        return state.withLock { $0.response }
    }

    /// The stream, waiting up to `seconds` for it to start.
    func stream(within seconds: Double = 5) -> RecordingStream? {
        if let stream = state.withLock({ $0.stream }) { return stream }
        guard answered.wait(timeout: .now() + seconds) == .success else { return nil }
        answered.signal()
        return state.withLock { $0.stream }
    }

    /// The answer if one was given already, without waiting.
    var immediateResponse: HTTPResponse? { state.withLock { $0.response } }
}

/// The chunks of a recorded stream.
final class RecordingStream: HTTPStreaming {
    let status: Int
    let headers: HTTPHeaders
    private let state = Mutex<(chunks: [[UInt8]], finished: Bool, closed: Bool)>(([], false, false))

    init(status: Int, headers: HTTPHeaders) {
        self.status = status
        self.headers = headers
    }

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.finished, !state.closed else { return false }
            state.chunks.append(bytes)
            return true
        }
    }

    func finish() { state.withLock { $0.finished = true } }

    var isClosed: Bool { state.withLock { $0.closed } }

    func close() { state.withLock { $0.closed = true } }

    var isFinished: Bool { state.withLock { $0.finished } }

    /// Everything written so far, as text.
    var text: String { String(decoding: state.withLock { $0.chunks }.joined(), as: UTF8.self) }
}
