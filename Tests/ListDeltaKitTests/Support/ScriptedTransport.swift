import Foundation
import Synchronization
import ListDeltaCore
@testable import ListDeltaKit

/// A transport that plays answers from a script, in order, and records the URLs asked for. When the script
/// runs out, a request waits until its task is cancelled (a long poll that never ends).
final class ScriptedTransport: ListTransport, @unchecked Sendable {
    enum Answer {
        /// A whole answer.
        case answer(Int, String)
        /// A whole answer with a `Link: <next>; rel="next"` header.
        case linked(Int, String, next: String)
        /// No answer.
        case failure(String)
        /// An event stream: these chunks, then the end (`failing` breaks the connection instead).
        case stream([String], failing: Bool)
        /// An event stream that sends these chunks and then stays open.
        case openStream([String])
    }

    private let lock = NSLock()
    private var script: [Answer]
    private var asked: [String] = []

    init(_ script: [Answer]) {
        self.script = script
    }

    /// Path and query of every request so far.
    var requests: [String] {
        lock.withLock { asked }
    }

    private func take(_ request: TransportRequest) -> Answer? {
        lock.withLock {
            let url = request.url
            asked.append(url.path + (url.query.map { "?" + $0 } ?? ""))
            return script.isEmpty ? nil : script.removeFirst()
        }
    }

    func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        switch take(request) {
        case .answer(let status, let body)?: return TransportResponse(status: status, body: Array(body.utf8))
        case .linked(let status, let body, let next)?:
            return TransportResponse(status: status, headers: ["link": "<\(next)>; rel=\"next\""], body: Array(body.utf8))
        case .failure(let message)?: throw TransportError(message)
        case .stream?, .openStream?: throw TransportError("the script has a stream where a GET was sent")
        case nil: throw await Self.hang()
        }
    }

    func stream(_ request: TransportRequest) async throws(TransportError) -> TransportStream {
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        switch take(request) {
        case .stream(let parts, let failing)?:
            for part in parts { continuation.yield(Array(part.utf8)) }
            if failing { continuation.finish(throwing: TransportError("connection reset")) } else { continuation.finish() }
            return TransportStream(status: 200, chunks: chunks)
        case .openStream(let parts)?:
            for part in parts { continuation.yield(Array(part.utf8)) }
            return TransportStream(status: 200, chunks: chunks)
        case .answer(let status, let body)?, .linked(let status, let body, _)?:
            continuation.yield(Array(body.utf8))
            continuation.finish()
            return TransportStream(status: status, chunks: chunks)
        case .failure(let message)?:
            throw TransportError(message)
        case nil:
            throw await Self.hang()
        }
    }

    private static func hang() async -> TransportError {
        try? await Task.sleep(for: .seconds(3600))
        return TransportError("cancelled")
    }
}

/// Served JSON for scripts.
enum Served {
    static func document(_ document: ListDocument) -> String { JSONWriter.string(of: document.jsonValue) }
    static func diff(_ old: ListDocument, _ new: ListDocument) -> String { JSONWriter.string(of: ListDiff(from: old, to: new).jsonValue) }
    static func event(_ name: String, _ data: String, id: Int? = nil) -> String {
        "event: \(name)\n" + (id.map { "id: \($0)\n" } ?? "") + "data: \(data)\n\n"
    }
    static func problem(_ status: Int, _ detail: String, current: Int? = nil) -> String {
        "{\"type\":\"about:blank\",\"status\":\(status),\"detail\":\"\(detail)\"" + (current.map { ",\"current\":\($0)" } ?? "") + "}"
    }

    /// An array list `id` at `revision` with these item ids.
    static func list(_ revision: Int, _ items: [String], id: String = "a") -> ListDocument {
        ListDocument(id: id, kind: .array, revision: revision, sections: [
            ListSection(id: "main", items: items.map { ListItem(id: $0, model: ["title": .string($0.uppercased())]) }),
        ])
    }
}

/// The failures a follower reported through `onRetry`.
final class RetryLog: Sendable {
    private let errors = Mutex<[FollowError]>([])

    var all: [FollowError] { errors.withLock { $0 } }

    func record(_ error: FollowError) {
        errors.withLock { $0.append(error) }
    }
}
