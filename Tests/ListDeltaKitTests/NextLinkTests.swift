import Foundation
import Testing
@testable import ListDeltaKit

/// Reading `Link: <…>; rel="next"` and resolving its target under the server's root.
@Suite struct NextLinkTests {
    @Test(arguments: [
        (#"</v1/lists/a/diff?from=2&cursor=9>; rel="next""#, "/v1/lists/a/diff?from=2&cursor=9"),
        ("</x>; rel=next", "/x"),
        (#"</p>; rel="prev", </n>; rel="next""#, "/n"),
        (#"</n>; title="a"; REL="Next Other""#, "/n"),
        (#"</n> ;rel = "next""#, "/n"),
    ])
    func findsTheNextTarget(field: String, target: String) {
        #expect(NextLink.target(in: field) == target)
    }

    @Test(arguments: [nil, "", "</a>", #"</a>; rel="prev""#, #"</a; rel="next""#, #"rel="next""#])
    func findsNoneWhereThereIsNone(field: String?) {
        #expect(NextLink.target(in: field) == nil)
    }

    @Test func targetsAreResolvedUnderTheRootAProxyServesTheServiceUnder() throws {
        let endpoints = ListEndpoints(baseURL: try #require(URL(string: "https://cdn.example/lists/")), listID: "a")
        #expect(endpoints.next("/v1/lists/a/diff?from=2&cursor=9")?.absoluteString == "https://cdn.example/lists/v1/lists/a/diff?from=2&cursor=9")
        #expect(endpoints.next("diff?from=3")?.absoluteString == "https://cdn.example/lists/v1/lists/diff?from=3")
        #expect(endpoints.next("https://other.example/x")?.absoluteString == "https://other.example/x")
    }
}
