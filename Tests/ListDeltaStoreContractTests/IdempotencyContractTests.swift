import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Kept answers of writes sent with an `Idempotency-Key`: kept with the revision in its transaction or on their
/// own, the first one kept per key (a write with a key answered is not applied), forgotten when expired (as the next one is kept) and when the list is deleted.
@Suite struct IdempotencyContractTests {
    private func answer(_ key: String, status: Int = 200, body: String = "{}", at time: Int64 = 1_000_000, expiredBefore: Int64 = 0) -> AnswerToKeep {
        AnswerToKeep(
            answer: IdempotentAnswer(
                key: key, fingerprint: Array(key.utf8) + [1, 2, 3], status: status, headerFields: "ETag: \"2\"\nContent-Type: application/json",
                body: Array(body.utf8), bodyIsGzip: false, keptAtMilliseconds: time),
            expiredBeforeMilliseconds: expiredBefore)
    }

    @Test(arguments: StoreKind.available)
    func anAppendKeepsItsAnswerInItsTransaction(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            var create = RevisionWrite.create(a)
            create.answer = answer("k1", status: 201, body: "{\"revision\":1}")
            _ = try store.append(create)
            #expect(try store.idempotentAnswer(a, key: "k1") == create.answer?.answer)
            #expect(try store.idempotentAnswer(a, key: "k2") == nil)
            #expect(try store.idempotentAnswer(uniqueID("other"), key: "k1") == nil)

            // A write that does not commit keeps nothing.
            var stale = RevisionWrite.update(a, expected: 7)
            stale.answer = answer("k2")
            #expect(throws: StoreError.conflict(current: 1)) { try store.append(stale) }
            #expect(try store.idempotentAnswer(a, key: "k2") == nil)

            // A key the list has answered is never applied again, and its first answer stays.
            var again = RevisionWrite.update(a, expected: 1)
            again.answer = answer("k1", status: 200, body: "{\"revision\":2}")
            #expect(throws: StoreError.conflict(current: 1)) { try store.append(again) }
            #expect(try store.head(a)?.revision == 1)
            #expect(try store.idempotentAnswer(a, key: "k1")?.status == 201)
            // Once it expired, it may be used again.
            again.answer = answer("k1", status: 200, body: "{\"revision\":2}", at: 9_000_000, expiredBefore: 2_000_000)
            #expect(try store.append(again).revision == 2)
            #expect(try store.idempotentAnswer(a, key: "k1")?.status == 200)
        }
    }

    @Test(arguments: StoreKind.available)
    func anAnswerWithoutARevisionIsKeptOnceEvenForNoList(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            try store.keep(answer("k", status: 404, body: "{\"status\":404}"), for: a)
            try store.keep(answer("k", status: 412), for: a)
            let kept = try #require(try store.idempotentAnswer(a, key: "k"))
            #expect(kept.status == 404)
            #expect(String(decoding: kept.body, as: UTF8.self) == "{\"status\":404}")
            #expect(kept.headerFields.contains("ETag: \"2\""))
        }
    }

    @Test(arguments: StoreKind.available)
    func expiredAnswersGoWhenTheListKeepsAnother(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            try store.keep(answer("old", at: 1_000), for: a)
            try store.keep(answer("recent", at: 5_000), for: a)
            // Kept at 9,000 with answers before 2,000 expired: "old" goes, "recent" stays, and "old" may be kept anew.
            try store.keep(answer("new", at: 9_000, expiredBefore: 2_000), for: a)
            #expect(try store.idempotentAnswer(a, key: "old") == nil)
            #expect(try store.idempotentAnswer(a, key: "recent") != nil)
            var write = RevisionWrite.create(a)
            write.answer = answer("old", status: 201, at: 9_500, expiredBefore: 2_000)
            _ = try store.append(write)
            #expect(try store.idempotentAnswer(a, key: "old")?.keptAtMilliseconds == 9_500)
        }
    }

    @Test(arguments: StoreKind.available)
    func theSweepForgetsExpiredAnswersOfEveryListABatchAtATime(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            // Times below 500 ms since 1970 are this test's alone (a PostgreSQL database is shared by the tests).
            let a = uniqueID("a")
            let b = uniqueID("b")
            try store.keep(answer("k", at: 100), for: a)
            try store.keep(answer("k", at: 200), for: b)
            try store.keep(answer("recent", at: 600), for: b)
            #expect(try store.forgetAnswers(keptBefore: 500, limit: 1) == 1)
            #expect(try store.idempotentAnswer(a, key: "k") == nil, "the oldest goes first")
            #expect(try store.idempotentAnswer(b, key: "k") != nil)
            #expect(try store.forgetAnswers(keptBefore: 500, limit: 10) == 1)
            #expect(try store.forgetAnswers(keptBefore: 500, limit: 10) == 0)
            #expect(try store.idempotentAnswer(b, key: "k") == nil)
            #expect(try store.idempotentAnswer(b, key: "recent") != nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func aDeleteForgetsTheListsAnswers(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let a = uniqueID("a")
            let b = uniqueID("b")
            var write = RevisionWrite.create(a)
            write.answer = answer("k")
            _ = try store.append(write)
            try store.keep(answer("k2"), for: a)
            try store.keep(answer("k"), for: b)
            _ = try store.delete(a, expectedRevision: nil)
            #expect(try store.idempotentAnswer(a, key: "k") == nil)
            #expect(try store.idempotentAnswer(a, key: "k2") == nil)
            #expect(try store.idempotentAnswer(b, key: "k") != nil)
        }
    }
}
