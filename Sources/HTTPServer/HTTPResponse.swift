import ZlibCodec

/// The body of an ``HTTPResponse``.
public enum HTTPResponseBody: Sendable {
    /// No body.
    case empty
    /// Plain bytes. Answered from a thread other than the event loop's, they are gzip'd on that thread when
    /// larger than the configured minimum and accepted by the client; answered on the loop, they go out plain
    /// (the loop never compresses: a handler that answers large bodies on the loop gives them precompressed).
    case bytes([UInt8])
    /// Pre-compressed: the server picks gzip when the request's Accept-Encoding allows it, else plain.
    /// No per-request compression.
    case precompressed(plain: [UInt8], gzip: [UInt8])
}

/// A complete response handed to ``HTTPResponder/respond(_:)``.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Response headers; `Content-Type` defaults to `application/json` for non-empty bodies.
    ///
    /// The server writes `Date`, `Content-Length` and `Transfer-Encoding` itself. A handler's `Date` and
    /// `Transfer-Encoding` are dropped; its `Content-Length` is sent only on a stream (one of known length goes
    /// unchunked) and on a HEAD or 304 answer, which states the length of the body it leaves out. A field whose
    /// name is not a token or whose value holds CR, LF or NUL is dropped, so a value taken from a request can
    /// never split the head.
    public var headers: HTTPHeaders
    /// The body.
    public var body: HTTPResponseBody

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Headers to send. The default is none.
    ///   - body: The body. The default is `.empty`.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: HTTPResponseBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension HTTPResponse {
    /// This response with a plain body larger than `minimum` bytes replaced by both codings (when gzip makes it
    /// smaller and the handler set no `Content-Encoding` of its own); any other response unchanged.
    /// - Complexity: O(*n*) in the body size when it compresses, else O(1).
    public func compressingBody(above minimum: Int) -> HTTPResponse {
        guard case .bytes(let plain) = body, plain.count > minimum, !headers.contains("Content-Encoding"),
            let gzip = try? Gzip.compress(plain), gzip.count < plain.count
        else { return self }
        var compressed = self
        compressed.body = .precompressed(plain: plain, gzip: gzip)
        return compressed
    }
}
