import HTTPServer
import ListDeltaCore
import ListDeltaEngine

extension RenderedBody {
    /// The response body: the server picks the coding the client accepts.
    var body: HTTPResponseBody {
        if let gzip { return .precompressed(plain: plain, gzip: gzip) }
        return .bytes(plain)
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
