import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The transport on URLSession: the platform's own HTTP stack on iOS and macOS (proxies, HTTP/2 and 3, App
/// Transport Security, the system's TLS), and FoundationNetworking (libcurl) on Linux, with no other dependency.
///
/// Whole answers use a completion-handler task; streams use a delegate, because `URLSession.bytes(for:)` does not
/// exist in FoundationNetworking. The sessions are ephemeral and never cache: a follower must see the server's
/// current answer.
public final class URLSessionTransport: ListTransport {
    private let session: URLSession
    private let streamDelegate: StreamingDelegate
    private let streamSession: URLSession

    /// Creates a transport; `configure` may adjust the ephemeral configuration (proxies, extra headers).
    public init(configure: (URLSessionConfiguration) -> Void = { _ in }) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configure(configuration)
        session = URLSession(configuration: configuration)
        streamDelegate = StreamingDelegate()
        streamSession = URLSession(configuration: configuration, delegate: streamDelegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
        streamSession.invalidateAndCancel()
    }

    public func send(_ request: TransportRequest) async throws(TransportError) -> TransportResponse {
        let urlRequest = Self.urlRequest(for: request)
        let handle = TaskHandle()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                    let task = session.dataTask(with: urlRequest) { data, response, error in
                        if let error {
                            continuation.resume(throwing: TransportError(error))
                        } else if let http = response as? HTTPURLResponse {
                            continuation.resume(returning: TransportResponse(
                                status: http.statusCode, headers: Self.headers(of: http), body: Array(data ?? Data())))
                        } else {
                            continuation.resume(throwing: TransportError("the answer is not HTTP"))
                        }
                    }
                    handle.start(task)
                }
            } onCancel: {
                handle.cancel()
            }
        } catch {
            throw TransportError(error)
        }
    }

    public func stream(_ request: TransportRequest) async throws(TransportError) -> TransportStream {
        let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let task = streamSession.dataTask(with: Self.urlRequest(for: request))
        let handle = TaskHandle()
        continuation.onTermination = { _ in handle.cancel() }
        do {
            let status = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (head: CheckedContinuation<Int, any Error>) in
                    streamDelegate.register(task.taskIdentifier, head: head, chunks: continuation)
                    handle.start(task)
                }
            } onCancel: {
                handle.cancel()
            }
            return TransportStream(status: status, chunks: chunks)
        } catch {
            continuation.finish()
            throw TransportError(error)
        }
    }

    private static func urlRequest(for request: TransportRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body.map { Data($0) }
        urlRequest.timeoutInterval = request.idleTimeout
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        return urlRequest
    }

    fileprivate static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            headers[String(describing: name).lowercased()] = String(describing: value)
        }
        return headers
    }
}
