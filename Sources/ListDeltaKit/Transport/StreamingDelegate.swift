import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes a streaming session's callbacks to the request each belongs to: the status to the waiting caller,
/// then every chunk of the body to its stream, then the end (or the error) of the connection.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Receiver {
        var head: CheckedContinuation<Int, any Error>?
        var chunks: AsyncThrowingStream<[UInt8], any Error>.Continuation
    }

    private let receivers = Mutex([Int: Receiver]())

    /// Registers where task `identifier`'s status and body go; call before the task is resumed.
    func register(
        _ identifier: Int, head: CheckedContinuation<Int, any Error>,
        chunks: AsyncThrowingStream<[UInt8], any Error>.Continuation
    ) {
        receivers.withLock { $0[identifier] = Receiver(head: head, chunks: chunks) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let head = receivers.withLock { receivers -> CheckedContinuation<Int, any Error>? in
            defer { receivers[dataTask.taskIdentifier]?.head = nil }
            return receivers[dataTask.taskIdentifier]?.head
        }
        if let http = response as? HTTPURLResponse {
            head?.resume(returning: http.statusCode)
            completionHandler(.allow)
        } else {
            head?.resume(throwing: TransportError("the answer is not HTTP"))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let chunks = receivers.withLock { $0[dataTask.taskIdentifier]?.chunks }
        chunks?.yield(Array(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let receiver = receivers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        receiver.head?.resume(throwing: TransportError(error ?? TransportError("the connection closed before an answer")))
        if let error {
            receiver.chunks.finish(throwing: TransportError(error))
        } else {
            receiver.chunks.finish()
        }
    }
}
