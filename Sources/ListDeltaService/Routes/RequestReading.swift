import HTTPServer
import ListDeltaCore
import ListDeltaEngine
import TextFormats

/// Reading and checking what a request carries: ids, query numbers, entity tags, media types.
enum RequestReading {
    /// The list id of the path, checked against `[A-Za-z0-9._-]{1,128}` (and not `.` or `..`).
    static func listID(_ request: HTTPRequest) throws(ServiceError) -> String {
        guard let id = request.pathParameters["id"] else { throw .badRequest("the path has no list id") }
        guard ListDocument.isValidID(id) else { throw .badRequest(ListDocument.idRule) }
        return id
    }

    /// A non-negative integer query parameter, or `nil` when absent.
    static func integer(_ request: HTTPRequest, _ name: String, maximum: Int = Int(Int32.max)) throws(ServiceError) -> Int? {
        guard let text = request.query[name] else { return nil }
        return try integer(text, name: name, maximum: maximum)
    }

    /// A non-negative decimal integer of at most `maximum`.
    static func integer(_ text: String, name: String, maximum: Int) throws(ServiceError) -> Int {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text),
            value <= maximum
        else {
            throw .badRequest("\(name) must be a whole number from 0 to \(maximum), not \"\(text.prefix(40))\"")
        }
        return value
    }

    /// `limit` (1...1000, default 100).
    static func limit(_ request: HTTPRequest) throws(ServiceError) -> Int {
        guard let limit = try integer(request, "limit", maximum: 1_000) else { return 100 }
        guard limit >= 1 else { throw .badRequest("limit must be from 1 to 1000") }
        return limit
    }

    /// `wait` in seconds (a non-negative number), clamped to `cap`.
    static func wait(_ request: HTTPRequest, cap: Int) throws(ServiceError) -> Double {
        guard let text = request.query["wait"] else { return 0 }
        guard text.utf8.count <= 12, let seconds = Double(text), seconds.isFinite, seconds >= 0,
            text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") })
        else {
            throw .badRequest("wait must be a number of seconds, not \"\(text.prefix(40))\"")
        }
        return min(seconds, Double(cap))
    }

    /// `cursor` (any decimal digits up to 2147483647), or `nil` when absent; anything else is 400 with `pointer`
    /// `/cursor`.
    static func cursor(_ request: HTTPRequest) throws(ServiceError) -> Int? {
        guard let text = request.query["cursor"] else { return nil }
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text),
            value <= PollCursor.maximum
        else {
            throw .invalidParameter(
                "cursor must be decimal digits from 0 to \(PollCursor.maximum) (copy it from the Link header), not \"\(text.prefix(40))\"",
                pointer: "/cursor")
        }
        return value
    }

    /// `true` when `If-None-Match` names `opaque` (in either coding) or is `*`.
    static func noneMatchHits(_ request: HTTPRequest, opaque: String) -> Bool {
        switch EntityTag.conditions(in: request.headers["If-None-Match"]) {
        case .any?: return true
        case .tags(let tags)?: return tags.contains(opaque)
        case nil: return false
        }
    }

    /// The write preconditions of `If-Match` and `If-None-Match`.
    static func preconditions(_ request: HTTPRequest) throws(ServiceError) -> WritePreconditions {
        var result = WritePreconditions()
        switch EntityTag.conditions(in: request.headers["If-Match"], strong: true) {
        case .any?: result.ifMatchAny = true
        case .tags(let tags)?:
            // An unparseable tag names no revision; the write then fails its precondition (412), once the list is
            // known to exist where it must.
            result.ifMatch = tags.compactMap { Int($0) }
        case nil: break
        }
        if case .any? = EntityTag.conditions(in: request.headers["If-None-Match"]) { result.createOnly = true }
        return result
    }

    /// Checks the media type (parameters such as `charset` allowed).
    static func requireMediaType(_ request: HTTPRequest, _ expected: String) throws(ServiceError) {
        let given = request.headers["Content-Type"]?.split(separator: ";").first.map { Substring($0).trimmingSpaces().lowercased() }
        guard given == expected else {
            throw .unsupportedMediaType("the body must be \(expected), not \(given.map { "\"\($0)\"" } ?? "untyped")")
        }
    }

    /// The body as JSON.
    ///
    /// A gzip body is inflated here, on the worker, after the route authorised the request.
    static func json(_ request: HTTPRequest, maximumDepth: Int) throws(ServiceError) -> JSONValue {
        try json(try body(request), maximumDepth: maximumDepth)
    }

    /// The body's bytes, inflated when it came gzip'd (so only on a worker, after the route authorised it).
    /// - Parameter limit: a bound below the server's body limit for this kind of body (413 above it).
    static func body(_ request: HTTPRequest, limit: Int? = nil) throws(ServiceError) -> [UInt8] {
        do {
            return try request.decodedBody(limit: limit)
        } catch {
            throw error.status == 413 ? .payloadTooLarge(error.detail) : .badRequest(error.detail)
        }
    }

    /// `body` read as JSON; malformed text is a 400, too deep a 422.
    static func json(_ body: [UInt8], maximumDepth: Int) throws(ServiceError) -> JSONValue {
        do throws(JSONReadError) {
            return try JSONReader(maximumDepth: maximumDepth).read(body)
        } catch {
            switch error {
            case let .malformed(reason, offset):
                throw .badRequest("the body is not JSON: \(reason) at byte \(offset)")
            case let .tooDeep(limit, pointer):
                throw .unprocessable(DocumentError(.tooDeep, at: pointer, "the body nests deeper than \(limit) levels"))
            }
        }
    }
}
