/// The first answer to a write that carried an `Idempotency-Key`, kept with its list so that the same write sent
/// again is answered the same and applied once (see ``RevisionStore/idempotentAnswer(_:key:)``).
public struct IdempotentAnswer: Sendable, Equatable {
    /// The client's key, unique per list.
    public var key: String
    /// What identifies the request the key was first sent with (a digest of its method and body): the same key
    /// with another request is refused, not replayed.
    public var fingerprint: [UInt8]
    /// The answer's status code.
    public var status: Int
    /// The answer's header fields worth replaying, one `Name: value` per line.
    public var headerFields: String
    /// The answer's body: plain, or a gzip member when ``bodyIsGzip``.
    public var body: [UInt8]
    /// Whether ``body`` is gzip'd.
    public var bodyIsGzip: Bool
    /// When the answer was kept, in milliseconds since 1970.
    public var keptAtMilliseconds: Int64

    /// Creates an answer to keep.
    /// - Parameters: One per stored property, see each property.
    public init(key: String, fingerprint: [UInt8], status: Int, headerFields: String, body: [UInt8], bodyIsGzip: Bool, keptAtMilliseconds: Int64) {
        self.key = key
        self.fingerprint = fingerprint
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.bodyIsGzip = bodyIsGzip
        self.keptAtMilliseconds = keptAtMilliseconds
    }
}

/// An answer to keep with a list, and the time before which the list's earlier answers have expired (they are
/// forgotten in the same transaction, so a key can be used again once its answer expired).
public struct AnswerToKeep: Sendable, Equatable {
    /// The answer.
    public var answer: IdempotentAnswer
    /// Answers of the list kept before this time (milliseconds since 1970) are forgotten.
    public var expiredBeforeMilliseconds: Int64

    /// Creates an answer to keep.
    public init(answer: IdempotentAnswer, expiredBeforeMilliseconds: Int64) {
        self.answer = answer
        self.expiredBeforeMilliseconds = expiredBeforeMilliseconds
    }
}
