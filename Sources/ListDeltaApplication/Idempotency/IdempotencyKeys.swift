import Crypto
import Foundation
public import ListDeltaStorage
import Synchronization

/// The answers of writes sent with an `Idempotency-Key`: a write whose answer a client lost (a broken connection, a
/// timeout) can be sent again with the same key, and is answered the first time's answer instead of being applied
/// twice.
///
/// The answer of a write that makes a revision is kept in the revision's own transaction
/// (``RevisionWrite/answer``); any other answer right after it (``keep(_:for:)``). Both are kept in the store, so
/// they are replayed after a restart and by every instance sharing the store. While the first request with a key is
/// under way on this instance, the same key is refused (``Claim/inFlight``); on another instance it waits for the
/// list's lock and finds the answer the first one kept (the route looks again when its write lost a race).
public final class IdempotencyKeys: Sendable {
    private let store: any RevisionStore
    /// How long an answer is replayed, in milliseconds.
    private let lifetimeMilliseconds: Int64
    /// The keys whose first request is under way here, by list.
    private let underWay = Mutex<Set<ScopedKey>>([])
    private let now: @Sendable () -> Int64

    /// - Parameters:
    ///   - seconds: How long an answer is kept and replayed.
    ///   - now: The clock, in milliseconds since 1970.
    public init(store: any RevisionStore, seconds: Int, now: @escaping @Sendable () -> Int64 = IdempotencyKeys.wallClock) {
        self.store = store
        self.lifetimeMilliseconds = Int64(seconds) * 1_000
        self.now = now
    }

    /// The wall clock in milliseconds since 1970.
    public static let wallClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1_000).rounded(.down)) }

    /// What identifies a request behind its key: the SHA-256 of its method, its body's coding and its body as sent.
    /// - Complexity: O(*n*) in the body size.
    public static func fingerprint(method: String, contentEncoding: String?, body: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("\(method)\n\(contentEncoding ?? "")\n".utf8))
        hash.update(data: body)
        return Array(hash.finalize())
    }

    /// Whether `key` is a key a client may send: 1 to 255 visible ASCII characters.
    public static func isValid(_ key: String) -> Bool {
        let bytes = key.utf8
        return (1...255).contains(bytes.count) && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// A key of a list.
    struct ScopedKey: Hashable, Sendable {
        let listID: String
        let key: String
    }

    /// What a request with a key may do.
    public enum Claim: Sendable {
        /// The key is new (or its answer expired): write, then give the ticket back (``release(_:)``).
        case write(Ticket)
        /// The same request was answered: answer this again, and write nothing.
        case replay(IdempotentAnswer)
        /// The key was first sent with another request (another method or body).
        case reused
        /// The key's first request is still under way on this instance.
        case inFlight
    }

    /// A request's hold on its key while it writes: what it keeps its answer as.
    public struct Ticket: Sendable {
        let scoped: ScopedKey
        /// The request's fingerprint (``IdempotencyKeys/fingerprint(method:contentEncoding:body:)``).
        public let fingerprint: [UInt8]
        let keptAt: Int64
        let expiredBefore: Int64

        /// The list the key belongs to.
        public var listID: String { scoped.listID }

        /// The answer to keep for this request.
        /// - Parameters: What ``IdempotentAnswer`` holds of the answer.
        public func answer(status: Int, headerFields: String, body: [UInt8], bodyIsGzip: Bool) -> AnswerToKeep {
            AnswerToKeep(
                answer: IdempotentAnswer(
                    key: scoped.key, fingerprint: fingerprint, status: status, headerFields: headerFields, body: body, bodyIsGzip: bodyIsGzip,
                    keptAtMilliseconds: keptAt),
                expiredBeforeMilliseconds: expiredBefore)
        }
    }

    /// What the request with `key` and `fingerprint` on `listID` may do; a ``Claim/write(_:)`` holds the key
    /// until ``release(_:)``.
    /// - Throws: ``ApplicationError`` when the store cannot be read (nothing is held then).
    public func claim(_ key: String, listID: String, fingerprint: [UInt8]) throws(ApplicationError) -> Claim {
        let scoped = ScopedKey(listID: listID, key: key)
        guard underWay.withLock({ $0.insert(scoped).inserted }) else { return .inFlight }
        let verdict: Claim?
        do {
            verdict = try kept(scoped, fingerprint: fingerprint)
        } catch {
            release(scoped)
            throw error
        }
        if let verdict {
            release(scoped)
            return verdict
        }
        let time = now()
        return .write(Ticket(scoped: scoped, fingerprint: fingerprint, keptAt: time, expiredBefore: time - lifetimeMilliseconds))
    }

    /// The claim of a request whose key has an answer kept (and not expired): its replay, or ``Claim/reused``;
    /// `nil` when there is none. For a request whose write was refused for a race another request with its key
    /// may have won on another instance.
    /// - Throws: ``ApplicationError`` when the store cannot be read.
    public func keptClaim(_ ticket: Ticket) throws(ApplicationError) -> Claim? {
        try kept(ticket.scoped, fingerprint: ticket.fingerprint)
    }

    private func kept(_ scoped: ScopedKey, fingerprint: [UInt8]) throws(ApplicationError) -> Claim? {
        let answer: IdempotentAnswer?
        do {
            answer = try store.idempotentAnswer(scoped.listID, key: scoped.key)
        } catch {
            throw .from(error)
        }
        guard let answer, answer.keptAtMilliseconds >= now() - lifetimeMilliseconds else { return nil }
        return answer.fingerprint == fingerprint ? .replay(answer) : .reused
    }

    /// Forgets every answer that expired, of every list, `batch` at a time (a transaction each, so writes go on
    /// between them), while `goOn()` says so; returns how many.
    /// - Throws: ``ApplicationError`` when the store cannot forget them (those forgotten before stay forgotten).
    /// - Complexity: O(*k* log *n*) for *k* expired answers of *n* kept.
    public func sweepExpired(batch: Int = 1_000, while goOn: () -> Bool = { true }) throws(ApplicationError) -> Int {
        precondition(batch > 0, "a sweep forgets at least one answer a batch")
        let expiredBefore = now() - lifetimeMilliseconds
        var total = 0
        while goOn() {
            let forgotten: Int
            do {
                forgotten = try store.forgetAnswers(keptBefore: expiredBefore, limit: batch)
            } catch {
                throw .from(error)
            }
            total += forgotten
            if forgotten < batch { break }
        }
        return total
    }

    /// Keeps the answer of a write that made no revision (a refusal, a write that changed nothing, a delete).
    /// - Throws: ``ApplicationError`` when the store cannot keep it (the answer still goes out; a repeat is then
    ///   treated as new).
    public func keep(_ answer: AnswerToKeep, for ticket: Ticket) throws(ApplicationError) {
        do {
            try store.keep(answer, for: ticket.listID)
        } catch {
            throw .from(error)
        }
    }

    /// Lets the key go: the request that held it has answered.
    public func release(_ ticket: Ticket) {
        release(ticket.scoped)
    }

    private func release(_ scoped: ScopedKey) {
        _ = underWay.withLock { $0.remove(scoped) }
    }
}
