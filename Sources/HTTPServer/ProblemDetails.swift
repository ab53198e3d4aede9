import TextFormats

/// A value in ``ProblemDetails/extra``: a string or an integer.
public enum ProblemValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int)

    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates an integer value.
    public init(integerLiteral value: Int) { self = .int(value) }
}

/// RFC 9457 problem details, used by the server for its own errors and by apps.
public struct ProblemDetails: Sendable, Error {
    /// The HTTP status code.
    public var status: Int
    /// A short, human-readable summary of the problem type.
    public var title: String
    /// An explanation specific to this occurrence.
    public var detail: String
    /// A URI reference identifying the problem type. The default is `about:blank`.
    public var type: String
    /// Extension members such as `"current": 5` or `"pointer": "/a"`, written sorted by key.
    public var extra: [String: ProblemValue]

    /// The most UTF-8 bytes of ``detail`` and of each string in ``extra``: what a problem echoes of a request (a
    /// member name, a pointer, a value) is cut to this, so that answering a large bad request costs no more than
    /// reading it.
    public static let maximumTextBytes = 1_024

    /// Creates problem details; ``detail`` and the strings of `extra` are cut to ``maximumTextBytes``.
    public init(status: Int, title: String, detail: String, type: String = "about:blank", extra: [String: ProblemValue] = [:]) {
        self.status = status
        self.title = title
        self.detail = Self.bounded(detail)
        self.type = type
        self.extra = extra.mapValues { value in
            guard case .string(let text) = value else { return value }
            return .string(Self.bounded(text))
        }
    }

    /// `text` cut to at most ``maximumTextBytes`` UTF-8 bytes on a character boundary, with `…` where it was cut.
    /// - Complexity: O(*n*) in the bytes kept.
    public static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumTextBytes else { return text }
        let ellipsis = "…"
        let budget = maximumTextBytes - ellipsis.utf8.count
        var end = text.startIndex
        var used = 0
        for index in text.indices {
            let next = text.index(after: index)
            let length = text.utf8.distance(from: index, to: next)
            guard used + length <= budget else { break }
            used += length
            end = next
        }
        return String(text[..<end]) + ellipsis
    }

    /// Creates problem details whose title is the status' reason phrase.
    public init(status: Int, detail: String, extra: [String: ProblemValue] = [:]) {
        self.init(status: status, title: HTTPStatus.reasonPhrase(status), detail: detail, extra: extra)
    }

    /// The JSON document (`type`, `title`, `status`, `detail`, then the extras sorted by key).
    public var jsonBytes: [UInt8] {
        var writer = JSONTextWriter(capacity: 160)
        writer.beginObject()
        for (key, value) in [("type", type), ("title", title)] {
            writer.key(key)
            writer.string(value)
        }
        writer.key("status")
        writer.raw(String(status))
        writer.key("detail")
        writer.string(detail)
        for key in extra.keys.sorted() where !["type", "title", "status", "detail"].contains(key) {
            writer.key(key)
            switch extra[key]! {
            case .string(let text): writer.string(text)
            case .int(let number): writer.raw(String(number))
            }
        }
        writer.endObject()
        return writer.bytes
    }

    /// A response carrying this problem as `application/problem+json`.
    /// - Parameter headers: Extra headers (for example `Allow`). The default is none.
    /// - Returns: The response with this problem's status.
    public func response(headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/problem+json"
        // Every 503 is temporary (over the connection limit, stopping, a full queue, a database out of reach), so
        // it says when to retry, unless the caller said otherwise.
        if status == 503 && headers["Retry-After"] == nil { headers["Retry-After"] = "1" }
        return HTTPResponse(status: status, headers: headers, body: .bytes(jsonBytes))
    }
}
