import Foundation
import HTTPServer
import ListDeltaApplication
import ListDeltaServer
import ListDeltaTestSupport
import Testing
@testable import ListDeltaService

/// `Idempotency-Key` on writes, in-process: the first answer is replayed to the same key with the same request and
/// nothing is written again; another request with the key is 422; a key under way is 409; a bad key is 400.
@Suite struct IdempotencyRouteTests {
    private let document = #"{"kind":"array","title":"T","items":[{"id":"a","model":{"n":1}}]}"#

    private func revisions(_ test: TestService, _ id: String) -> Int? {
        (test.answer(.GET, "/v1/lists/\(id)/revisions")?.json?["revisions"] as? [Any])?.count
    }

    @Test func aRepeatedWriteIsAnsweredAgainAndAppliedOnce() throws {
        let test = try TestService()
        let first = try #require(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "put-1"], json: document))
        #expect(first.status == 201)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        let again = try #require(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "put-1"], json: document))
        #expect(again.status == 201)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        #expect(again.headers["Location"] == "/v1/lists/l")
        #expect(again.headers["ETag"] == first.headers["ETag"])
        #expect(again.plainBody == first.plainBody)

        let patch = #"[{"op":"add","path":"/sections/0/items/-","value":{"id":"b","model":{}}}]"#
        let patched = try #require(test.answer(.PATCH, "/v1/lists/l", headers: ["Idempotency-Key": "patch-1"], json: patch))
        #expect(patched.json?["revision"] as? Int == 2)
        let replayed = try #require(test.answer(.PATCH, "/v1/lists/l", headers: ["Idempotency-Key": "patch-1"], json: patch))
        #expect(replayed.headers["Idempotent-Replayed"] == "true")
        #expect(replayed.json?["revision"] as? Int == 2)
        #expect(revisions(test, "l") == 2)
        // The same patch with a new key is a new write (here: b is added again, and refused as a duplicate id).
        #expect(test.answer(.PATCH, "/v1/lists/l", headers: ["Idempotency-Key": "patch-2"], json: patch)?.status == 422)
    }

    @Test func refusalsAreKeptButNotAuthenticationOrServerErrors() throws {
        let test = try TestService()
        test.put("l", items: ["a", "b"])
        let guarded = #"[{"op":"test","path":"/sections/0/items/0/id","value":"b"},{"op":"remove","path":"/sections/0/items/0"}]"#
        let refused = try #require(test.answer(.PATCH, "/v1/lists/l", headers: ["Idempotency-Key": "g"], json: guarded))
        #expect(refused.status == 409)
        #expect(refused.json?["pointer"] as? String == "/sections/0/items/0/id")
        let again = try #require(test.answer(.PATCH, "/v1/lists/l", headers: ["Idempotency-Key": "g"], json: guarded))
        #expect(again.status == 409)
        #expect(again.headers["Idempotent-Replayed"] == "true")
        #expect(again.headers["Content-Type"] == "application/problem+json")
        #expect(again.plainBody == refused.plainBody)
        #expect(IdempotentWrites.isKept(412) && IdempotentWrites.isKept(404) && IdempotentWrites.isKept(200))
        #expect(!IdempotentWrites.isKept(401) && !IdempotentWrites.isKept(403) && !IdempotentWrites.isKept(503))
    }

    @Test func theSweepForgetsExpiredAnswersOfAListNeverWrittenAgain() async throws {
        let test = try TestService { $0.idempotencySeconds = 1 }
        #expect(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "k"], json: document)?.status == 201)
        #expect(try test.service.app.idempotency.sweepExpired() == 0, "not expired yet")
        try await Task.sleep(for: .milliseconds(1_100))
        #expect(try test.service.app.idempotency.sweepExpired() == 1)
        #expect(try test.service.app.idempotency.sweepExpired() == 0)
        // Forgotten: the key is new again (the same document makes no revision, and is not a replay).
        let again = try #require(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "k"], json: document))
        #expect(again.status == 200 && again.headers["Idempotent-Replayed"] == nil)
    }

    @Test func aKeyWithAnotherRequestIs422AndABadKeyIs400() throws {
        let test = try TestService()
        #expect(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "k"], json: document)?.status == 201)
        let other = try #require(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "k"], json: #"{"kind":"array","items":[]}"#))
        #expect(other.status == 422)
        #expect(other.json?["pointer"] as? String == "/Idempotency-Key")
        let method = try #require(test.answer(.DELETE, "/v1/lists/l", headers: ["Idempotency-Key": "k"]))
        #expect(method.status == 422)
        #expect(test.answer(.GET, "/v1/lists/l")?.status == 200)
        // The same key on another list is another key.
        #expect(test.answer(.PUT, "/v1/lists/m", headers: ["Idempotency-Key": "k"], json: #"{"kind":"array","items":[]}"#)?.status == 201)
        for bad in ["", "has space", String(repeating: "x", count: 256), "é"] {
            let answer = try #require(test.answer(.PUT, "/v1/lists/n", headers: ["Idempotency-Key": bad], json: document))
            #expect(answer.status == 400, "\(bad)")
            #expect(answer.json?["pointer"] as? String == "/Idempotency-Key")
        }
        #expect(test.answer(.GET, "/v1/lists/n")?.status == 404)
    }

    @Test func aKeyUnderWayIs409WithRetryAfter() throws {
        let test = try TestService()
        let fingerprint = IdempotencyKeys.fingerprint(method: "PUT", contentEncoding: nil, body: Array(document.utf8))
        guard case .write(let ticket) = try test.service.app.idempotency.claim("busy", listID: "l", fingerprint: fingerprint) else {
            Issue.record("a new key is not claimed")
            return
        }
        let busy = try #require(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "busy"], json: document))
        #expect(busy.status == 409)
        #expect(busy.headers["Retry-After"] == "1")
        #expect(busy.json?["pointer"] as? String == "/Idempotency-Key")
        #expect(test.answer(.GET, "/v1/lists/l")?.status == 404)
        test.service.app.idempotency.release(ticket)
        #expect(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "busy"], json: document)?.status == 201)
    }

    @Test func aDeleteAndARevertAreReplayedAndADeleteForgetsTheKeys() throws {
        let test = try TestService()
        #expect(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "create"], json: document)?.status == 201)
        test.put("l", items: ["x"])
        let revert = #"{"to":1}"#
        let reverted = try #require(test.answer(.POST, "/v1/lists/l/revert", headers: ["Idempotency-Key": "undo"], json: revert))
        #expect(reverted.json?["revision"] as? Int == 3)
        let again = try #require(test.answer(.POST, "/v1/lists/l/revert", headers: ["Idempotency-Key": "undo"], json: revert))
        #expect(again.headers["Idempotent-Replayed"] == "true")
        #expect(revisions(test, "l") == 3)

        #expect(test.answer(.DELETE, "/v1/lists/l", headers: ["Idempotency-Key": "drop"])?.status == 204)
        let deleted = try #require(test.answer(.DELETE, "/v1/lists/l", headers: ["Idempotency-Key": "drop"]))
        #expect(deleted.status == 204)
        #expect(deleted.headers["Idempotent-Replayed"] == "true")
        // The list's earlier keys went with it: the create's key writes anew.
        let recreated = try #require(test.answer(.PUT, "/v1/lists/l", headers: ["Idempotency-Key": "create"], json: document))
        #expect(recreated.status == 201)
        #expect(recreated.headers["Idempotent-Replayed"] == nil)
        #expect(recreated.json?["revision"] as? Int == 4)
    }
}
