import Foundation
import GRDB
public import ListDeltaStorage

extension SQLiteStore {
    /// The answer kept for `key` on `listID`, expired or not.
    /// - Complexity: O(log *n*) plus the body size, for *n* kept answers.
    public func idempotentAnswer(_ listID: String, key: String) throws(StoreError) -> IdempotentAnswer? {
        try StoreError.catching {
            try pool.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT \(Self.answerColumns) FROM list_idempotency WHERE list_id = ? AND key = ?", arguments: [listID, key]
                ).map(Self.answer(from:))
            }
        }
    }

    /// Keeps an answer that made no revision, in a transaction of its own (flushed like a revision).
    public func keep(_ answer: AnswerToKeep, for listID: String) throws(StoreError) {
        try StoreError.catching {
            try pool.write { db in try Self.keep(answer, for: listID, in: db) }
        }
    }

    public func forgetAnswers(keptBefore milliseconds: Int64, limit: Int) throws(StoreError) -> Int {
        try StoreError.catching {
            try pool.write { db in
                try db.execute(
                    sql: """
                        DELETE FROM list_idempotency WHERE rowid IN
                            (SELECT rowid FROM list_idempotency WHERE kept_at_ms < ? ORDER BY kept_at_ms LIMIT ?)
                        """,
                    arguments: [milliseconds, limit])
                return db.changesCount
            }
        }
    }

    /// Forgets the list's expired answers, then inserts `kept` unless the list has an answer for its key.
    static func keep(_ kept: AnswerToKeep, for listID: String, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM list_idempotency WHERE list_id = ? AND kept_at_ms < ?", arguments: [listID, kept.expiredBeforeMilliseconds])
        let answer = kept.answer
        try db.execute(
            sql: """
                INSERT INTO list_idempotency (list_id, key, fingerprint, status, header_fields, body, body_is_gzip, kept_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (list_id, key) DO NOTHING
                """,
            arguments: [
                listID, answer.key, Data(answer.fingerprint), answer.status, answer.headerFields, Data(answer.body), answer.bodyIsGzip,
                answer.keptAtMilliseconds,
            ])
    }

    /// Whether the list has an answer for `kept`'s key that has not expired.
    static func hasAnswer(_ kept: AnswerToKeep, for listID: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM list_idempotency WHERE list_id = ? AND key = ? AND kept_at_ms >= ?)",
            arguments: [listID, kept.answer.key, kept.expiredBeforeMilliseconds]) ?? false
    }

    /// Forgets every answer kept for `listID` (in the delete's transaction).
    static func forgetAnswers(of listID: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM list_idempotency WHERE list_id = ?", arguments: [listID])
    }

    private static let answerColumns = "key, fingerprint, status, header_fields, body, body_is_gzip, kept_at_ms"

    private static func answer(from row: Row) -> IdempotentAnswer {
        IdempotentAnswer(
            key: row["key"], fingerprint: [UInt8](row["fingerprint"] as Data), status: row["status"], headerFields: row["header_fields"],
            body: [UInt8](row["body"] as Data), bodyIsGzip: row["body_is_gzip"], keptAtMilliseconds: row["kept_at_ms"])
    }
}
