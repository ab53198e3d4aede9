import Foundation
import ListDeltaCore
import ListDeltaEngine
import ListDeltaFeeds
import ListDeltaSources
import Synchronization
import ListDeltaTestSupport
import Testing
@testable import ListDeltaApplication

/// One fetch of a source, start to end, without a socket or a store: a scripted fetcher, the real feed parser,
/// and a writer that keeps the list in memory.
@Suite struct SourceCycleTests {
    static let start: Int64 = 1_800_000_000_000

    static func rss(_ titles: [String]) -> [UInt8] {
        let items = titles.map { "<item><guid>\($0)</guid><title>\($0)</title></item>" }.joined()
        return Array("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>News</title>\(items)</channel></rss>".utf8)
    }

    func cycle(_ fetcher: ScriptedFetcher, _ writer: MemoryWriter) -> SourceCycle {
        SourceCycle(
            fetcher: fetcher, parser: FeedParser(), writer: writer, fileDirectory: nil, schedule: RetrySchedule(), maximumDepth: 64,
            clock: { Self.start }, random: { 0.5 })
    }

    let settings = SourceSettings(url: "https://example.com/feed.xml", interval: 60)

    @Test func newContentIsWrittenAndItsValidatorsKept() {
        let fetcher = ScriptedFetcher([.success(FetchResponse(
            status: 200, body: .content(Self.rss(["a", "b"])), validators: FetchValidators(entityTag: "\"1\""),
            finalURL: URL(string: "https://example.com/feed.xml")))])
        let writer = MemoryWriter()
        let result = cycle(fetcher, writer).run(list: "news", settings: settings, state: .initial)
        #expect(result.outcome == .changed)
        #expect(writer.itemIDs == ["a", "b"])
        #expect(result.state.lastFetch == SourceState.Attempt(
            atMilliseconds: Self.start, status: 200, items: 2, bytes: Self.rss(["a", "b"]).count,
            parseMilliseconds: result.state.lastFetch?.parseMilliseconds, changed: true))
        #expect(result.state.lastFetch?.parseMilliseconds != nil)
        #expect(result.state.validators.entityTag == "\"1\"")
        #expect(result.state.lastError == nil)
        #expect(result.nextFetchAtMilliseconds == Self.start + 60_000)
    }

    @Test func sameContentMakesNoRevisionAndA304ReadsNothing() {
        let body = Self.rss(["a"])
        let fetcher = ScriptedFetcher([
            .success(FetchResponse(status: 200, body: .content(body), validators: FetchValidators(entityTag: "\"1\""))),
            .success(FetchResponse(status: 200, body: .content(body), validators: FetchValidators(entityTag: "\"1\""))),
            .success(FetchResponse(status: 304, body: .notModified, validators: FetchValidators(entityTag: "\"1\""))),
        ])
        let writer = MemoryWriter()
        let sourceCycle = cycle(fetcher, writer)
        let first = sourceCycle.run(list: "news", settings: settings, state: .initial)
        let second = sourceCycle.run(list: "news", settings: settings, state: first.state)
        #expect(second.outcome == .unchanged)
        #expect(writer.revisions == 1)
        let third = sourceCycle.run(list: "news", settings: settings, state: second.state)
        #expect(third.outcome == .notModified)
        #expect(third.state.lastFetch?.items == 1, "the list still has the item")
        #expect(third.state.lastFetch?.parseMilliseconds == nil)
        #expect(fetcher.validatorsSeen.last?.entityTag == "\"1\"", "asked conditionally")
    }

    @Test func aFailureWritesNothingAndBacksOff() {
        let fetcher = ScriptedFetcher([
            .failure(SourceFetchError(.httpStatus, "the source answered 503", status: 503, retryAfter: 600)),
            .failure(SourceFetchError(.network, "refused")),
        ])
        let writer = MemoryWriter()
        let sourceCycle = cycle(fetcher, writer)
        let first = sourceCycle.run(list: "news", settings: settings, state: .initial)
        #expect(first.outcome == .failed)
        #expect(writer.revisions == 0)
        #expect(first.state.consecutiveFailures == 1)
        #expect(first.state.lastError?.status == 502)
        #expect(first.state.lastError?.reason == "httpStatus")
        #expect(first.state.lastFetch?.status == 503)
        #expect(first.nextFetchAtMilliseconds == Self.start + 600_000, "Retry-After is longer than the backoff")
        let second = sourceCycle.run(list: "news", settings: settings, state: first.state)
        #expect(second.state.consecutiveFailures == 2)
        #expect(second.nextFetchAtMilliseconds == Self.start + 240_000, "60 s × 2² at the middle of the jitter")
    }

    @Test func aFetchThatLostItsLeaseWritesAndRecordsNothing() {
        let fetcher = ScriptedFetcher([.success(FetchResponse(status: 200, body: .content(Self.rss(["a"])), validators: FetchValidators()))])
        let writer = MemoryWriter()
        var state = SourceState()
        state.consecutiveFailures = 3
        let result = cycle(fetcher, writer).run(list: "news", settings: settings, state: state, isCurrent: { false })
        #expect(result.outcome == .superseded)
        #expect(writer.revisions == 0)
        #expect(result.state == state, "the state is the newer fetch's to record")
    }

    @Test func a304ToAnUnconditionalRequestIsAFailure() {
        let fetcher = ScriptedFetcher([.success(FetchResponse(status: 304, body: .notModified, validators: FetchValidators()))])
        let result = cycle(fetcher, MemoryWriter()).run(list: "news", settings: settings, state: .initial)
        #expect(result.outcome == .failed)
        #expect(result.state.lastError?.reason == "httpStatus")
    }

    @Test func unreadableContentWritesNothing() {
        let fetcher = ScriptedFetcher([.success(FetchResponse(status: 200, body: .content(Array("<html><body>hi</body></html>".utf8)), validators: FetchValidators()))])
        let writer = MemoryWriter()
        let result = cycle(fetcher, writer).run(list: "news", settings: settings, state: .initial)
        #expect(result.outcome == .failed)
        #expect(result.state.lastError?.reason == "parse")
        #expect(writer.revisions == 0)
    }

    @Test func aMissingListIsFetchedUnconditionally() {
        var state = SourceState()
        state.validators = FetchValidators(entityTag: "\"old\"")
        let fetcher = ScriptedFetcher([.success(FetchResponse(status: 200, body: .content(Self.rss(["a"])), validators: FetchValidators()))])
        _ = cycle(fetcher, MemoryWriter()).run(list: "news", settings: settings, state: state)
        #expect(fetcher.validatorsSeen == [FetchValidators()])
    }

    @Test func aListDeltaDocumentIsWrittenAsItIs() {
        let document = #"{"kind":"sections","sections":[{"id":"s","title":"S","items":[{"id":"x"},{"id":"y"}]}]}"#
        let fetcher = ScriptedFetcher([.success(FetchResponse(status: nil, body: .content(Array(document.utf8)), validators: FetchValidators()))])
        let writer = MemoryWriter()
        let result = cycle(fetcher, writer).run(list: "news", settings: SourceSettings(url: "https://example.com/list.json"), state: .initial)
        #expect(result.outcome == .changed)
        #expect(writer.itemIDs == ["x", "y"])
    }

    @Test func aRefusedURLFailsBeforeFetching() {
        let fetcher = ScriptedFetcher([])
        let result = cycle(fetcher, MemoryWriter()).run(list: "news", settings: SourceSettings(url: "ftp://example.com/x"), state: .initial)
        #expect(result.state.lastError?.reason == "invalidURL")
        #expect(fetcher.validatorsSeen.isEmpty)
    }

    @Test func theStateSurvivesItsStoredForm() {
        var state = SourceState()
        state.lastFetch = .init(atMilliseconds: Self.start, status: 200, items: 3, bytes: 1_234, parseMilliseconds: 1.5, changed: true)
        state.lastError = .init(status: 502, title: "Bad Gateway", detail: "no", reason: "network")
        state.consecutiveFailures = 2
        state.validators = FetchValidators(entityTag: "\"e\"", lastModified: "Tue, 01 Dec 2026 00:00:00 GMT")
        state.items = 3
        #expect(SourceState(stored: state.storedJSON) == state)
        #expect(SourceSettings(stored: .object(SourceSettings(url: "u", interval: 20, sections: .day, maxItems: 5).jsonObject))
            == SourceSettings(url: "u", interval: 20, sections: .day, maxItems: 5))
    }
}

/// Answers fetches from a script, recording the validators each request carried.
final class ScriptedFetcher: SourceFetching {
    private let script: Mutex<[Result<FetchResponse, SourceFetchError>]>
    private let seen = Mutex<[FetchValidators]>([])

    init(_ script: [Result<FetchResponse, SourceFetchError>]) {
        self.script = Mutex(script)
    }

    var validatorsSeen: [FetchValidators] { seen.withLock { $0 } }

    func fetch(_ request: FetchRequest) throws(SourceFetchError) -> FetchResponse {
        seen.withLock { $0.append(request.validators) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else { throw SourceFetchError(.network, "the script ran out") }
        return try next.get()
    }
}

/// A list kept in memory: a revision whenever the document differs.
final class MemoryWriter: SourceListWriting {
    private let state = Mutex<(document: ListDocument?, revisions: Int)>((nil, 0))

    var revisions: Int { state.withLock { $0.revisions } }
    var itemIDs: [String] { state.withLock { $0.document?.sections.flatMap { $0.items.map(\.id) } ?? [] } }

    func listExists(_ id: String) -> Bool { state.withLock { $0.document != nil } }

    func write(_ id: String, document json: JSONValue, isCurrent: () -> Bool) throws(ApplicationError) -> (changed: Bool, items: Int) {
        guard isCurrent() else { throw .superseded("test") }
        let document: ListDocument
        do {
            document = try DataProviderFactory(limits: DocumentLimits()).makeDocument(from: json, listID: id, revision: 1)
        } catch {
            throw .engine(.unprocessable(error))
        }
        return state.withLock { current in
            let changed = current.document.map { !$0.hasSameContent(as: document) } ?? true
            if changed {
                current.document = document
                current.revisions += 1
            }
            return (changed, document.sections.reduce(0) { $0 + $1.items.count })
        }
    }
}
