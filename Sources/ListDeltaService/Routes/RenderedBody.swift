import HTTPServer
import ListDeltaCore
import ZlibCodec

/// A JSON body rendered once and kept in both codings, so a representation is compressed once, not per request.
///
/// Its gzip member is spliceable: a body that embeds this one (a write's response embeds the write's diff) is
/// made with ``wrapped(prefix:suffix:)`` from the same compressed bytes, without compressing them again.
struct RenderedBody: Sendable {
    /// Bodies smaller than this are sent plain (gzip would not pay).
    static let compressionThreshold = 1_024

    let plain: [UInt8]
    /// The gzip coding, when it pays.
    let gzip: [UInt8]?
    /// The gzip member ``gzip`` comes from, when it can be spliced (shares its storage).
    private let member: SpliceableGzip?

    init(_ value: JSONValue) {
        self.init(bytes: JSONWriter.bytes(of: value))
    }

    init(bytes: [UInt8]) {
        if bytes.capacity > bytes.count + bytes.count / 8 + 64 {
            // A cached body holds exactly its bytes, not the room its writer grew (up to twice as much).
            var exact: [UInt8] = []
            exact.reserveCapacity(bytes.count)
            exact += bytes
            plain = exact
        } else {
            plain = bytes
        }
        if bytes.count >= Self.compressionThreshold, let member = try? SpliceableGzip(compressing: bytes),
            member.bytes.count < bytes.count
        {
            self.member = member
            gzip = member.bytes
        } else {
            member = nil
            gzip = nil
        }
    }

    private init(plain: [UInt8], gzip: [UInt8]) {
        self.plain = plain
        self.gzip = gzip
        self.member = nil
    }

    /// The bytes held, for cache accounting: both codings' buffers as the allocator rounds them, and the cache
    /// entry's own room (most cached bodies are small diffs, where the overheads are a third of the cost).
    var cost: Int { HeapFootprint.bytes(plain) + (gzip.map(HeapFootprint.bytes) ?? 0) + Self.entryBytes }

    /// A cache entry's slot (key, body, cost, recency) in a hash table kept under three quarters full.
    static let entryBytes = 160

    /// The response body: the server picks the coding the client accepts.
    var body: HTTPResponseBody {
        if let gzip { return .precompressed(plain: plain, gzip: gzip) }
        return .bytes(plain)
    }

    /// `prefix` + this body + `suffix`, in both codings; the gzip coding reuses this body's compressed bytes.
    /// - Complexity: O(*n*) to copy this body, plus compressing the prefix and suffix.
    func wrapped(prefix: String, suffix: String) -> RenderedBody {
        let prefixBytes = Array(prefix.utf8)
        let suffixBytes = Array(suffix.utf8)
        let whole = prefixBytes + plain + suffixBytes
        guard let member, let spliced = try? member.spliced(prefix: prefixBytes, suffix: suffixBytes) else {
            return RenderedBody(bytes: whole)
        }
        return RenderedBody(plain: whole, gzip: spliced)
    }
}

/// Response building shared by the routes.
enum Responses {
    /// A JSON response (`application/json` unless `contentType` says otherwise).
    static func json(_ status: Int, _ value: JSONValue, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return HTTPResponse(status: status, headers: headers, body: .bytes(JSONWriter.bytes(of: value)))
    }

    /// A rendered representation with its entity tag, or 304 when `If-None-Match` names it.
    static func representation(
        _ rendered: RenderedBody, etag opaque: String, contentType: String, cacheControl: String, request: HTTPRequest
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers["Cache-Control"] = cacheControl
        if RequestReading.noneMatchHits(request, opaque: opaque) {
            // The tag of the coding this client would get.
            let gzipped = rendered.gzip != nil && AcceptEncoding.allowsGzip(request.headers["Accept-Encoding"])
            headers["ETag"] = EntityTag.fieldValue(of: opaque, gzipped: gzipped)
            headers["Vary"] = "Accept-Encoding"
            return HTTPResponse(status: 304, headers: headers)
        }
        headers["ETag"] = EntityTag.fieldValue(of: opaque, gzipped: false)  // the server tags a gzip'd body
        headers["Content-Type"] = contentType
        return HTTPResponse(status: 200, headers: headers, body: rendered.body)
    }

    /// The problem response of an error.
    static func problem(_ error: ServiceError) -> HTTPResponse {
        var response = error.problem.response()
        if let challenge = error.challenge { response.headers["WWW-Authenticate"] = challenge }
        return response
    }
}
