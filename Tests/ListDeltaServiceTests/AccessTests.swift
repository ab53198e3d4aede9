import ListDeltaServer
import Foundation
import HTTPServer
import ListDeltaAccess
import ListDeltaCoreTestSupport
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// docs/api.md's Access section through the routes: private reads, scoped writes, expiry of held requests.
@Suite struct AccessTests {
    static let secret = "service-test-secret-0123456789-abcdefgh"

    /// A service with `readAccess: token`, the secret, and the static token "static-token".
    private func privateService(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws -> (TestService, TokenMinter) {
        var configuration = ServiceConfiguration()
        configuration.jwtSecret = Self.secret
        let keys = try await configuration.verificationKeys()
        let test = try TestService(keys: keys) {
            $0.jwtSecret = Self.secret
            $0.readAccess = "token"
            $0.writeTokens = ["static-token"]
            configure(&$0)
        }
        return (test, try await TokenMinter.hs256(secret: Self.secret))
    }

    private func bearer(_ token: String) -> HTTPHeaders { ["Authorization": "Bearer \(token)"] }

    @Test func readsNeedATokenCoveringTheList() async throws {
        let (test, minter) = try await privateService()
        let admin = bearer("static-token")
        #expect(test.put("a-1", items: ["x"], headers: admin) == 1)
        #expect(test.put("b-1", items: ["y"], headers: admin) == 1)
        let reader = bearer(try await minter.token(scope: .read, lists: ["a-*"], lifetime: 60))
        for path in ["/v1/lists/a-1", "/v1/lists/a-1/sections", "/v1/lists/a-1/sections/0/items", "/v1/lists/a-1/diff?from=0",
                     "/v1/lists/a-1/revisions"] {
            let anonymous = try #require(test.answer(.GET, path))
            #expect(anonymous.status == 401, "\(path)")
            #expect(anonymous.headers["WWW-Authenticate"] == "Bearer realm=\"listdelta\"")
            #expect(test.answer(.GET, path, headers: reader)?.status == 200, "\(path)")
            #expect(test.answer(.GET, path.replacingOccurrences(of: "a-1", with: "b-1"), headers: reader)?.status == 403, "\(path)")
            #expect(test.answer(.GET, path, headers: admin)?.status == 200, "\(path)")
        }
        // Whether a list exists is told only to whom may read it.
        #expect(test.answer(.GET, "/v1/lists/a-404", headers: reader)?.status == 404)
        #expect(test.answer(.GET, "/v1/lists/b-404", headers: reader)?.status == 403)
        // The token in the query, as an EventSource sends it.
        let token = try await minter.token(scope: .read, lists: ["a-1"], lifetime: 60)
        #expect(test.answer(.GET, "/v1/lists/a-1?access_token=\(token)")?.status == 200)
    }

    @Test func revisionsThatNeverChangeAreCachedPrivately() async throws {
        let (test, minter) = try await privateService()
        test.put("a-1", items: ["x"], headers: bearer("static-token"))
        test.put("a-1", items: ["x", "y"], headers: bearer("static-token"))
        let reader = bearer(try await minter.token(scope: .read, lists: ["a-*"], lifetime: 60))
        for path in ["/v1/lists/a-1?revision=1", "/v1/lists/a-1/diff?from=1&to=2"] {
            let answer = try #require(test.answer(.GET, path, headers: reader))
            #expect(answer.status == 200)
            #expect(answer.headers["Cache-Control"] == "private, max-age=31536000, immutable", "\(path)")
        }
        let open = try TestService()
        open.put("p", items: ["x"])
        open.put("p", items: ["y"])
        #expect(open.answer(.GET, "/v1/lists/p?revision=1")?.headers["Cache-Control"] == "public, max-age=31536000, immutable")
    }

    @Test func theIndexShowsOnlyCoveredLists() async throws {
        let (test, minter) = try await privateService()
        for id in ["a-1", "b-1", "a-2", "c-1", "a-3"] { test.put(id, items: ["x"], headers: bearer("static-token")) }
        #expect(test.answer(.GET, "/v1/lists")?.status == 401)
        let reader = bearer(try await minter.token(scope: .read, lists: ["a-*", "c-1"], lifetime: 60))
        let page = try #require(test.answer(.GET, "/v1/lists?limit=2", headers: reader)?.json)
        #expect((page["lists"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a-1", "a-2"])
        #expect(page["next"] as? String == "a-2")
        let rest = try #require(test.answer(.GET, "/v1/lists?limit=2&after=a-2", headers: reader)?.json)
        #expect((rest["lists"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["a-3", "c-1"])
        #expect(rest["next"] is NSNull)
        let all = try #require(test.answer(.GET, "/v1/lists", headers: bearer("static-token"))?.json)
        #expect((all["lists"] as? [Any])?.count == 5)
    }

    @Test func writesNeedAWriteScopeCoveringTheList() async throws {
        let (test, minter) = try await privateService()
        let reader = bearer(try await minter.token(scope: .read, lists: ["*"], lifetime: 60))
        let writer = bearer(try await minter.token(scope: .write, lists: ["w-*"], lifetime: 60))
        #expect(test.put("w-1", items: ["x"]) == nil)
        #expect(test.answer(.PUT, "/v1/lists/w-1", headers: reader, json: #"{"kind":"array","items":[]}"#)?.status == 403)
        #expect(test.put("w-1", items: ["x"], headers: writer) == 1)
        #expect(test.answer(.PUT, "/v1/lists/v-1", headers: writer, json: #"{"kind":"array","items":[]}"#)?.status == 403)
        #expect(test.answer(.PATCH, "/v1/lists/w-1", headers: writer, json: "[]")?.status == 200)
        #expect(test.answer(.POST, "/v1/lists/w-1/revert", headers: reader, json: #"{"to":1}"#)?.status == 403)
        #expect(test.answer(.DELETE, "/v1/lists/w-1", headers: reader)?.status == 403)
        #expect(test.answer(.DELETE, "/v1/lists/w-1", headers: writer)?.status == 204)
        // The query form is for GETs only; a token sent twice is refused.
        let token = try await minter.token(scope: .write, lists: ["*"], lifetime: 60)
        #expect(test.answer(.PUT, "/v1/lists/w-2?access_token=\(token)", json: #"{"kind":"array","items":[]}"#)?.status == 400)
        #expect(test.answer(.GET, "/v1/lists/w-2?access_token=\(token)", headers: bearer(token))?.status == 400)
    }

    @Test func manyListsRequestsNameTheFirstListNotCovered() async throws {
        let (test, minter) = try await privateService()
        for id in ["a-1", "a-2", "b-1"] { test.put(id, items: ["x"], headers: bearer("static-token")) }
        let reader = bearer(try await minter.token(scope: .read, lists: ["a-*"], lifetime: 60))
        #expect(test.answer(.GET, "/v1/diffs?lists=a-1:0,a-2:0")?.status == 401)
        #expect(test.answer(.GET, "/v1/diffs?lists=a-1:0,a-2:0", headers: reader)?.status == 200)
        let refused = try #require(test.answer(.GET, "/v1/diffs?lists=a-1:0,b-1:0,c-1:0", headers: reader))
        #expect(refused.status == 403)
        #expect(refused.json?["detail"] as? String == "the token does not cover the list \"b-1\"")
        #expect(test.answer(.GET, "/v1/events?lists=a-1:0,b-1:0", headers: reader)?.status == 403)
    }

    @Test func aHeldPollEndsWith401WhenItsTokenExpires() async throws {
        let (test, minter) = try await privateService()
        test.put("a-1", items: ["x"], headers: bearer("static-token"))
        let token = try await minter.token(scope: .read, lists: ["a-*"], lifetime: 1.5)
        // Held past the token's end (a poll that waited its whole 8 s would answer 200 with an empty diff). The
        // next cursor interval ends at least `cursorSeconds` from now, so the hold is the wait's, wherever the clock
        // stands in the current interval.
        let cursorSeconds = Double(test.service.options.cursorSeconds)
        let cursor = Int(Date().timeIntervalSince1970 / cursorSeconds) + 1
        let answer = try #require(test.answer(.GET, "/v1/lists/a-1/diff?from=1&wait=8&cursor=\(cursor)", headers: bearer(token), within: 8))
        #expect(answer.status == 401)
        #expect(answer.headers["WWW-Authenticate"] == "Bearer realm=\"listdelta\", error=\"invalid_token\"")
        // The many-lists poll too.
        let many = try #require(test.answer(.GET, "/v1/diffs?lists=a-1:1&wait=8", headers: bearer(token), within: 8))
        #expect(many.status == 401)
    }

    @Test func anEventStreamEndsWhenItsTokenExpires() async throws {
        let (test, minter) = try await privateService()
        test.put("a-1", items: ["x"], headers: bearer("static-token"))
        let token = try await minter.token(scope: .read, lists: ["a-*"], lifetime: 1.5)
        // A static token's stream, opened after it: still open when the other one ended.
        let responder = test.send(.GET, "/v1/lists/a-1/events?from=0", headers: bearer(token))
        let stream = try #require(responder.stream())
        let forever = test.send(.GET, "/v1/lists/a-1/events?from=0", headers: bearer("static-token"))
        let open = try #require(forever.stream())
        #expect(eventually(6) { stream.isFinished })
        #expect(stream.text.contains("event: diff"))
        #expect(stream.text.hasSuffix(": the token expired; reconnect with a fresh one\n\n"))
        #expect(!open.isFinished)
        forever.disconnect()
    }

    @Test func publicReadsIgnoreTokensAndWritesStayGuarded() async throws {
        var configuration = ServiceConfiguration()
        configuration.jwtSecret = Self.secret
        let keys = try await configuration.verificationKeys()
        let test = try TestService(keys: keys) { $0.jwtSecret = Self.secret }
        let minter = try await TokenMinter.hs256(secret: Self.secret)
        #expect(test.put("p-1", items: ["x"]) == nil)
        #expect(test.put("p-1", items: ["x"], headers: bearer(try await minter.token(scope: .write, lists: ["p-*"], lifetime: 60))) == 1)
        #expect(test.answer(.GET, "/v1/lists/p-1")?.status == 200)
        #expect(test.answer(.GET, "/v1/lists/p-1", headers: bearer("garbage.not.valid"))?.status == 200)
    }

    @Test func configurationRules() throws {
        var configuration = ServiceConfiguration()
        configuration.readAccess = "token"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }  // no credential to read with
        configuration.jwtSecret = "short"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.jwtSecret = Self.secret
        try configuration.validate()
        configuration.readAccess = "private"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        // Keys must be loaded for a configuration that names them.
        configuration.readAccess = "public"
        #expect(throws: ConfigurationError.self) { try TestService { $0.jwtSecret = Self.secret } }
        var environment = ServiceConfiguration()
        try environment.apply(environment: ["LISTDELTA_JWT_SECRET": Self.secret, "LISTDELTA_READ_ACCESS": "token", "LISTDELTA_JWT_PUBLIC_KEYS": "/k.json"])
        #expect(environment.jwtSecret == Self.secret && environment.privateReads && environment.jwtPublicKeys == "/k.json")
    }
}
