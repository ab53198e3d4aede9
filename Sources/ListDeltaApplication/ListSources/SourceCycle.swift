import Tracing
import ListDeltaEngine
import Foundation
import ListDeltaCore
import ListDeltaFeeds
import ListDeltaSources

/// How a fetch ended, as `listdelta_source_fetches_total{outcome}` counts it.
enum SourceFetchOutcome: String, Sendable, CaseIterable {
    /// New content that made a new revision.
    case changed
    /// Content read, but the list it maps to equals the current one: no revision.
    case unchanged
    /// The source was changed, detached or taken over by another instance during the fetch: nothing written or
    /// recorded (the newer fetch does both).
    case superseded
    /// The source said nothing changed (HTTP 304, or a file with the same time and size): nothing read.
    case notModified = "not_modified"
    /// Nothing usable: the list is left as it was.
    case failed
}

/// Where a cycle writes the list it built: the repository in the service, a recorder in tests.
protocol SourceListWriting: Sendable {
    /// Whether the list exists (when it does not, the next fetch is unconditional: it must create it).
    func listExists(_ id: String) -> Bool
    /// Writes the document (as a PUT body would be) as the list's next revision, unless it equals the current one,
    /// provided `isCurrent()`, asked under the list's lock right before the commit, still holds.
    /// - Returns: Whether a revision was made, and the list's item count.
    /// - Throws: ``ApplicationError/superseded(_:)`` when `isCurrent()` is false; the document's error when it is invalid.
    func write(_ id: String, document: JSONValue, isCurrent: () -> Bool) throws(ApplicationError) -> (changed: Bool, items: Int)
}

/// One fetch of a source from start to end: fetch (conditionally), read the content as a feed or a ListDelta
/// document, map it to a list, write it, and work out the new state and when to fetch next. Blocking: it runs on
/// a source worker. A failure at any step writes nothing.
struct SourceCycle: Sendable {
    let fetcher: any SourceFetching
    let parser: any FeedParsing
    let writer: any SourceListWriting
    let fileDirectory: String?
    let schedule: RetrySchedule
    let maximumDepth: Int
    /// Milliseconds since 1970.
    let clock: @Sendable () -> Int64
    /// A number in 0..<1, for the backoff's jitter.
    let random: @Sendable () -> Double

    /// What a cycle leaves behind.
    struct Result: Sendable, Equatable {
        var state: SourceState
        var nextFetchAtMilliseconds: Int64
        var outcome: SourceFetchOutcome
    }

    /// Runs one fetch of `list`'s source; `isCurrent` says whether the fetch still holds its source's lease (asked
    /// before it writes).
    func run(list: String, settings: SourceSettings, state: SourceState, isCurrent: () -> Bool = { true }) -> Result {
        Spans.with("listdelta.source.cycle") { span in
            let result = runTraced(list: list, settings: settings, state: state, isCurrent: isCurrent)
            if span.isRecording {
                span.attributes["listdelta.list.id"] = list
                span.attributes["listdelta.source.outcome"] = result.outcome.rawValue
                if let status = result.state.lastFetch?.status { span.attributes["http.response.status_code"] = status }
            }
            return result
        }
    }

    private func runTraced(list: String, settings: SourceSettings, state: SourceState, isCurrent: () -> Bool) -> Result {
        let started = clock()
        var next = state
        var attempt = SourceState.Attempt(atMilliseconds: started, status: nil, items: state.items, bytes: 0, parseMilliseconds: nil, changed: false)
        let outcome: SourceFetchOutcome
        do throws(SourceCycleError) {
            let location = try SourceCycleError.wrap { () throws(SourceFetchError) in
                try SourceLocation(settings.url, fileDirectory: fileDirectory)
            }
            // Without its list (never created, or deleted since), the content must be read again whatever the
            // validators say.
            let validators = writer.listExists(list) ? state.validators : FetchValidators()
            let response = try SourceCycleError.wrap { () throws(SourceFetchError) in
                try fetcher.fetch(FetchRequest(location: location, validators: validators))
            }
            attempt.status = response.status
            attempt.bytes = response.byteCount
            switch response.body {
            case .notModified where validators.isEmpty:
                // Nothing was asked conditionally, so there is nothing the answer can refer to.
                throw SourceCycleError.fetch(SourceFetchError(.httpStatus, "the source answered 304 to a request that was not conditional", status: 304))
            case .notModified:
                outcome = .notModified
            case .content(let bytes):
                let parseStart = DispatchTime.now().uptimeNanoseconds
                let document = try Spans.with("listdelta.source.parse") { (span) throws(SourceCycleError) -> JSONValue in
                    if span.isRecording { span.attributes["listdelta.source.bytes"] = bytes.count }
                    return try read(bytes, response: response, settings: settings)
                }
                attempt.parseMilliseconds = Double(DispatchTime.now().uptimeNanoseconds - parseStart) / 1e6
                let written: (changed: Bool, items: Int)
                do {
                    written = try writer.write(list, document: document, isCurrent: isCurrent)
                } catch {
                    if case .superseded = error { throw SourceCycleError.superseded }
                    throw SourceCycleError.document(error)
                }
                attempt.changed = written.changed
                attempt.items = written.items
                next.items = written.items
                next.validators = response.validators
                outcome = written.changed ? .changed : .unchanged
            }
            next.lastError = nil
            next.consecutiveFailures = 0
        } catch .superseded {
            return Result(state: state, nextFetchAtMilliseconds: clock(), outcome: .superseded)
        } catch {
            next.lastError = error.failure
            next.consecutiveFailures = state.consecutiveFailures + 1
            if case .fetch(let fetchError) = error { attempt.status = fetchError.status }
            outcome = .failed
        }
        next.lastFetch = attempt
        let delay = schedule.delay(
            interval: Double(settings.interval), consecutiveFailures: next.consecutiveFailures, retryAfter: next.lastError?.retryAfter,
            random: random())
        return Result(state: next, nextFetchAtMilliseconds: clock() + Int64(delay * 1_000), outcome: outcome)
    }

    /// The content as a document body: a ListDelta document (JSON that is not a JSON Feed) as it is, a feed
    /// mapped by the settings.
    private func read(_ bytes: [UInt8], response: FetchResponse, settings: SourceSettings) throws(SourceCycleError) -> JSONValue {
        if let document = listDeltaDocument(bytes) { return document }
        let feed: Feed
        do {
            feed = try parser.parse(bytes, baseURL: response.finalURL?.absoluteString ?? baseURL(settings), charset: response.charset)
        } catch {
            throw .parse(error)
        }
        return FeedListMapping(grouping: settings.sections, maximumItems: settings.maxItems).document(from: feed).json
    }

    private func baseURL(_ settings: SourceSettings) -> String? {
        settings.url.hasPrefix("file:") ? nil : settings.url
    }

    /// JSON whose top level is an object without a JSON Feed `version`: a ListDelta document.
    private func listDeltaDocument(_ bytes: [UInt8]) -> JSONValue? {
        guard let first = bytes.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }), first == UInt8(ascii: "{"),
            let json = try? JSONReader(maximumDepth: maximumDepth).read(bytes), case .object(let object) = json
        else { return nil }
        if case .string(let version)? = object["version"], version.hasPrefix("https://jsonfeed.org/version/") { return nil }
        return json
    }
}
