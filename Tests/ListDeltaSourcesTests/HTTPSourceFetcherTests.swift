import Foundation
import HTTPServer
import ListDeltaSources
import Logging
import Synchronization
import ListDeltaTestSupport
import Testing

@Suite(.serialized) struct HTTPSourceFetcherTests {
    let feeds: FeedServer
    let fetcher: HTTPSourceFetcher

    init() throws {
        feeds = try FeedServer()
        fetcher = HTTPSourceFetcher(
            limits: FetchLimits(maximumBytes: 100_000, timeoutSeconds: 1.5), policy: try HostPolicy(patterns: ["127.0.0.1"]))
    }

    private func request(_ path: String, _ validators: FetchValidators = FetchValidators()) -> FetchRequest {
        FetchRequest(location: .web(URL(string: feeds.base + path)!), validators: validators)
    }

    private func failure(_ path: String) -> SourceFetchError? {
        do {
            _ = try fetcher.fetch(request(path))
            return nil
        } catch {
            return error
        }
    }

    @Test func aFeedIsFetchedGzippedThenConditionally() throws {
        let first = try fetcher.fetch(request("/feed"))
        #expect(first.status == 200)
        #expect(first.body == .content(FeedServer.feed), "inflated to the served bytes")
        #expect(first.validators.entityTag == "\"v1\"")
        #expect(first.charset == "iso-8859-1")
        let second = try fetcher.fetch(request("/feed", first.validators))
        #expect(second.status == 304)
        #expect(second.body == .notModified)
        let seen = feeds.log.entries.withLock { $0 }
        #expect(seen.first?.acceptEncoding == "gzip")
        #expect(seen.last?.ifNoneMatch == "\"v1\"")
    }

    @Test func redirectsAreFollowedUpToFive() throws {
        let response = try fetcher.fetch(request("/hop/4"))
        #expect(response.status == 200)
        #expect(response.finalURL?.path == "/feed")
        #expect(failure("/hop/5")?.kind == .redirects)
        #expect(failure("/to-file")?.kind == .redirects)
    }

    @Test func aRedirectToAForbiddenAddressIsRefusedBeforeConnecting() {
        let error = failure("/to-metadata")
        #expect(error?.kind == .refusedHost)
        #expect(error?.message.contains("169.254.169.254") == true)
    }

    @Test func theDefaultPolicyRefusesLoopback() throws {
        let strict = HTTPSourceFetcher(limits: FetchLimits(), policy: .publicOnly)
        #expect(throws: SourceFetchError.self) { try strict.fetch(request("/feed")) }
        #expect(feeds.log.entries.withLock { $0.isEmpty }, "never connected")
    }

    @Test func errorsCarryStatusAndRetryAfter() {
        let busy = failure("/busy")
        #expect(busy?.kind == .httpStatus)
        #expect(busy?.status == 429)
        #expect(busy?.retryAfter == 120)
        let broken = failure("/broken")
        #expect(broken?.status == 500)
        #expect(broken?.retryAfter == nil)
    }

    @Test func boundsAreKept() {
        #expect(failure("/huge")?.kind == .tooLarge)
        // The feed comes after 3 s, past the 1.5 s deadline: a timeout, not the feed.
        #expect(failure("/slow")?.kind == .timeout)
        #expect(failure("/nothing-here")?.status == 404)
    }

    @Test func plainHTTPGoesToTheCheckedAddressKeepingTheName() throws {
        let named = HTTPSourceFetcher(
            limits: FetchLimits(), policy: try HostPolicy(patterns: ["127.0.0.1"]), resolver: FixedResolver(["127.0.0.1"]))
        let url = URL(string: "http://feeds.test:\(feeds.server.port)/feed")!
        _ = try named.fetch(FetchRequest(location: .web(url)))
        #expect(feeds.log.entries.withLock { $0.last?.host } == "feeds.test:\(feeds.server.port)")
        let rebound = HTTPSourceFetcher(limits: FetchLimits(), policy: try HostPolicy(patterns: ["127.0.0.1"]), resolver: FixedResolver(["10.0.0.1"]))
        #expect(throws: SourceFetchError.self) { try rebound.fetch(FetchRequest(location: .web(url))) }
    }
}

/// Resolves every name to the given addresses.
struct FixedResolver: AddressResolving {
    let addresses: [String]
    init(_ addresses: [String]) { self.addresses = addresses }
    func resolve(_ host: String, timeoutSeconds: Double) throws(SourceFetchError) -> [IPAddress] { addresses.compactMap(IPAddress.init) }
}
