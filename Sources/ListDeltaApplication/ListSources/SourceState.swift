import ListDeltaCore
import TextFormats
import ListDeltaSources

/// What a source's fetches have found so far: the last attempt, its error, failures in a row, and what the next
/// fetch needs (the validators of the content last read, and how many items it gave).
struct SourceState: Sendable, Equatable {
    /// One fetch attempt, as `GET .../source` shows it in `lastFetch`.
    struct Attempt: Sendable, Equatable {
        var atMilliseconds: Int64
        /// The HTTP status of the final answer; `nil` for files and for failures before any answer.
        var status: Int?
        /// Items the list has from the source after this attempt.
        var items: Int
        /// Body bytes read, after inflation.
        var bytes: Int
        /// Time spent parsing and mapping, when anything was parsed.
        var parseMilliseconds: Double?
        /// Whether the attempt made a new revision.
        var changed: Bool
    }

    /// Why the last attempt failed, as the problem `lastError` shows.
    struct Failure: Sendable, Equatable {
        var status: Int
        var title: String
        var detail: String
        /// What failed: `fetch` reasons (`network`, `httpStatus`, `refusedHost`...), `parse` or `document`.
        var reason: String
        /// Seconds the source asked to wait before the next try (not stored: it only sets the next fetch time).
        var retryAfter: Double? = nil
    }

    var lastFetch: Attempt?
    var lastError: Failure?
    var consecutiveFailures = 0
    /// The validators of the content the list was last built from.
    var validators = FetchValidators()
    /// Items the list has from the source.
    var items = 0

    static let initial = SourceState()

    // MARK: - JSON

    /// The members `GET .../source` shows: `lastFetch`, `lastError`, `consecutiveFailures`.
    func servedMembers(into object: inout JSONObject) {
        if let attempt = lastFetch {
            var fetch = JSONObject()
            fetch["at"] = .string(RFC3339.format(milliseconds: attempt.atMilliseconds))
            fetch["status"] = attempt.status.map { .number(JSONNumber($0)) } ?? .null
            fetch["items"] = .number(JSONNumber(attempt.items))
            fetch["bytes"] = .number(JSONNumber(attempt.bytes))
            fetch["parseMs"] = attempt.parseMilliseconds.map { .number(JSONNumber(($0 * 1_000).rounded() / 1_000)) } ?? .null
            fetch["changed"] = .bool(attempt.changed)
            object["lastFetch"] = .object(fetch)
        } else {
            object["lastFetch"] = .null
        }
        if let failure = lastError {
            var problem = JSONObject()
            problem["type"] = "about:blank"
            problem["title"] = .string(failure.title)
            problem["status"] = .number(JSONNumber(failure.status))
            problem["detail"] = .string(failure.detail)
            problem["reason"] = .string(failure.reason)
            object["lastError"] = .object(problem)
        } else {
            object["lastError"] = .null
        }
        object["consecutiveFailures"] = .number(JSONNumber(consecutiveFailures))
    }

    /// The stored form: the served members plus what the next fetch needs.
    var storedJSON: JSONValue {
        var object = JSONObject()
        servedMembers(into: &object)
        if let attempt = lastFetch { object["atMs"] = .number(JSONNumber(Int(attempt.atMilliseconds))) }
        object["etag"] = validators.entityTag.map(JSONValue.string) ?? .null
        object["lastModified"] = validators.lastModified.map(JSONValue.string) ?? .null
        object["sourceItems"] = .number(JSONNumber(items))
        return .object(object)
    }

    /// Reads the stored form; what cannot be read starts afresh (the next fetch is then unconditional).
    init(stored json: JSONValue) {
        guard case .object(let object) = json else { return }
        if case .object(let fetch)? = object["lastFetch"], case .number(let at)? = object["atMs"], let atMilliseconds = at.intValue {
            lastFetch = Attempt(
                atMilliseconds: Int64(atMilliseconds), status: Self.int(fetch["status"]), items: Self.int(fetch["items"]) ?? 0,
                bytes: Self.int(fetch["bytes"]) ?? 0, parseMilliseconds: Self.double(fetch["parseMs"]),
                changed: fetch["changed"] == .bool(true))
        }
        if case .object(let problem)? = object["lastError"], case .string(let title)? = problem["title"],
            case .string(let detail)? = problem["detail"], let status = Self.int(problem["status"])
        {
            let reason: String = if case .string(let text)? = problem["reason"] { text } else { "fetch" }
            lastError = Failure(status: status, title: title, detail: detail, reason: reason)
        }
        consecutiveFailures = Self.int(object["consecutiveFailures"]) ?? 0
        if case .string(let tag)? = object["etag"] { validators.entityTag = tag }
        if case .string(let date)? = object["lastModified"] { validators.lastModified = date }
        items = Self.int(object["sourceItems"]) ?? 0
    }

    init() {}

    private static func int(_ value: JSONValue?) -> Int? {
        if case .number(let number)? = value { return number.intValue }
        return nil
    }

    private static func double(_ value: JSONValue?) -> Double? {
        if case .number(let number)? = value { return number.value }
        return nil
    }
}
