import ListDeltaServer
import ListDeltaApplication
import Foundation
import HTTPServer
import ListDeltaEngine
import ListDeltaTestSupport
import Testing
import ZlibCodec
@testable import ListDeltaService

/// The API's routes, handled in-process: request reading, the repository, caches and answers, without sockets.
@Suite struct RouteTests {
    @Test func createReadPatchAndDiff() throws {
        let test = try TestService()
        let created = try #require(test.answer(.PUT, "/v1/lists/fruits", json: #"{"kind":"array","title":"F","items":[{"id":"a","model":{}}]}"#))
        #expect(created.status == 201)
        #expect(created.headers["Location"] == "/v1/lists/fruits")
        let patched = try #require(test.answer(.PATCH, "/v1/lists/fruits", headers: ["If-Match": "\"1\""], json: #"[{"op":"add","path":"/sections/0/items/-","value":{"id":"b","model":{}}}]"#))
        #expect(patched.status == 200)
        #expect(patched.json?["revision"] as? Int == 2)
        let document = try #require(test.answer(.GET, "/v1/lists/fruits"))
        #expect(document.status == 200)
        #expect(document.headers["ETag"] == "\"2\"")
        let diff = try #require(test.answer(.GET, "/v1/lists/fruits/diff?from=1"))
        let items = diff.json?["items"] as? [String: Any]
        #expect((items?["inserted"] as? [Any])?.count == 1)
        let stale = try #require(test.answer(.PUT, "/v1/lists/fruits", headers: ["If-Match": "\"1\""], json: #"{"kind":"array","items":[]}"#))
        #expect(stale.status == 412)
    }

    /// An id no list ever had is answered 404 on the calling thread (the loop), without a worker or the store.
    @Test func unknownIDsAreAnsweredWithoutAWorker() throws {
        let test = try TestService()
        test.put("known", items: ["x"])
        for target in ["/v1/lists/nope-1", "/v1/lists/nope-2/diff?from=0", "/v1/lists/nope-3/sections", "/v1/lists/nope-4/events"] {
            let responder = test.send(.GET, target)
            let response = try #require(responder.immediateResponse, "\(target) was not answered at once")
            #expect(response.status == 404)
        }
        #expect(test.send(.GET, "/v1/lists/bad%20id").immediateResponse?.status == 400)
        #expect(test.answer(.GET, "/v1/lists/known")?.status == 200)
    }

    /// The token is checked before the body is read: a corrupt gzip body is refused 401 without a token (it was
    /// never inflated), and 400 with one (inflated on a worker, found corrupt).
    @Test func authorisationComesBeforeInflation() throws {
        let test = try TestService { $0.writeTokens = ["secret"] }
        let corrupt: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4]
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        let anonymous = test.send(.PUT, "/v1/lists/a", headers: json, body: corrupt, coding: .gzip)
        #expect(anonymous.immediateResponse?.status == 401)
        var authorised = json
        authorised["Authorization"] = "Bearer secret"
        #expect(test.send(.PUT, "/v1/lists/a", headers: authorised, body: corrupt, coding: .gzip).response()?.status == 400)
        let bomb = try Gzip.compress([UInt8](repeating: 0x20, count: 20 << 20), level: 9)
        #expect(test.send(.PUT, "/v1/lists/a", headers: authorised, body: bomb, coding: .gzip).response()?.status == 413)
        let good = try Gzip.compress(Array(#"{"kind":"array","items":[]}"#.utf8))
        #expect(test.send(.PUT, "/v1/lists/a", headers: authorised, body: good, coding: .gzip).response()?.status == 201)
    }

    /// A full queue answers 503 with Retry-After; what was admitted still completes.
    @Test func fullQueueAnswers503() throws {
        let test = try TestService {
            $0.writeThreads = 1
            $0.maxQueuedRequests = 1
        }
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        #expect(test.app.pools.write.submit {
            started.signal()
            release.wait()
        })
        started.wait()
        let queued = test.send(.PUT, "/v1/lists/q", headers: ["Content-Type": "application/json"], body: Array(#"{"kind":"array","items":[]}"#.utf8))
        let refused = try #require(test.answer(.PUT, "/v1/lists/r", json: #"{"kind":"array","items":[]}"#, within: 1))
        #expect(refused.status == 503)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(refused.headers["Content-Type"] == "application/problem+json")
        #expect(test.app.pools.write.usage.rejected == 1)
        // Reads have their own pool: a busy write pool does not refuse them.
        #expect(test.answer(.GET, "/v1/lists")?.status == 200)
        release.signal()
        #expect(queued.response()?.status == 201)
    }

    /// Heads are bounded in memory and every list stays correct after eviction.
    @Test func headsAreBoundedAndCorrectAfterEviction() throws {
        let test = try TestService {
            $0.cachedLists = 8
            $0.cacheBytes = 0
        }
        for index in 0..<40 { #expect(test.put("l\(index)", items: ["i\(index)"]) == 1) }
        #expect(test.app.repository.cacheUsage.heads <= 8)
        for index in 0..<40 {
            let document = try #require(test.answer(.GET, "/v1/lists/l\(index)"))
            #expect(document.status == 200)
            #expect(String(decoding: document.plainBody, as: UTF8.self).contains("\"i\(index)\""))
        }
        #expect(test.put("l0", items: ["i0", "more"]) == 2)
        #expect(test.answer(.GET, "/v1/lists/l0/diff?from=1")?.status == 200)
    }
}
