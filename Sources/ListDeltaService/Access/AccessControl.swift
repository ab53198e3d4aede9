import Foundation
import HTTPServer
import ListDeltaAccess
import TextFormats

/// Who may read and write which list (docs/api.md, Access): reads the request's credential, has it verified, and checks
/// it covers what the request asks. Runs on the event loop: a verified token is a cache lookup.
struct AccessControl: Sendable {
    let verifier: TokenVerifier
    /// `readAccess: token`.
    let privateReads: Bool
    /// The time, in Unix seconds (tests move it).
    let now: @Sendable () -> Double
    /// Where anonymous writes may come from (when no credential is configured).
    let anonymousWrites: AnonymousWriteGuard

    init(options: APIOptions, keys: VerificationKeys, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        verifier = TokenVerifier(staticTokens: options.writeTokens, keys: keys, maximumLifetimeSeconds: Double(options.maxTokenLifetimeSeconds))
        privateReads = options.privateReads
        anonymousWrites = AnonymousWriteGuard(requiresLoopbackHost: options.boundToLoopback)
        self.now = now
    }

    /// The request's bearer token: `Authorization: Bearer <token>` or, on a GET, `?access_token=<token>` (an
    /// `EventSource` cannot send headers); `nil` when it sent none (another scheme counts as none).
    /// - Throws: ``AccessError/badRequest(_:)`` for `access_token` on another method, or sent beside the header.
    static func token(_ request: HTTPRequest) throws(AccessError) -> String? {
        let header = request.headers["Authorization"]
        if request.repeatedQueryNames.contains("access_token") {
            throw .badRequest("send the token once: access_token is repeated")
        }
        if let query = request.query["access_token"] {
            guard request.method == .GET || request.method == .HEAD else {
                throw .badRequest("access_token is accepted on GET only: send Authorization: Bearer <token>")
            }
            guard header == nil else { throw .badRequest("send the token once: in Authorization or as access_token, not both") }
            return query.isEmpty ? nil : query
        }
        guard let header, header.utf8.count > 7, header.utf8.prefix(7).lazy.map({ $0 | 0x20 }).elementsEqual("bearer ".utf8) else {
            return nil
        }
        let token = header.dropFirst(7).trimmingSpaces()
        return token.isEmpty ? nil : String(token)
    }

    /// What the request's credential grants; `nil` when it sent none.
    func grant(_ request: HTTPRequest) throws(AccessError) -> Grant? {
        guard let token = try Self.token(request) else { return nil }
        return try verifier.grant(for: token, now: now())
    }

    /// Checks a read of `list`. Returns `nil` when reads are public, else the grant (whose expiry ends a long poll
    /// or an event stream).
    func authorizeRead(_ request: HTTPRequest, list: String) throws(ServiceError) -> Grant? {
        try authorizeRead(request, lists: CollectionOfOne(list))
    }

    /// Checks a read of every list in `lists`; the first one not covered is named.
    func authorizeRead(_ request: HTTPRequest, lists: some Sequence<String>) throws(ServiceError) -> Grant? {
        let grant = try readGrant(request)
        try Self.require(grant, covers: lists)
        return grant
    }

    /// Checks that `grant` (from ``readGrant(_:)``; `nil` when reads are public) covers every list in `lists`; the
    /// first one not covered is named.
    static func require(_ grant: Grant?, covers lists: some Sequence<String>) throws(ServiceError) {
        guard let grant else { return }
        if let uncovered = lists.first(where: { !grant.covers($0) }) { throw .access(.notCovered(list: uncovered)) }
    }

    /// The grant reads go by: `nil` when reads are public, else the request's (a token is then required).
    func readGrant(_ request: HTTPRequest) throws(ServiceError) -> Grant? {
        guard privateReads else { return nil }
        do throws(AccessError) {
            guard let grant = try grant(request) else { throw .missing }
            return grant
        } catch {
            throw .access(error)
        }
    }

    /// Checks a write of `list`: when no credential is configured, open to clients of this origin (see
    /// ``AnonymousWriteGuard``), else a static token or a write-scoped token covering it.
    func authorizeWrite(_ request: HTTPRequest, list: String) throws(ServiceError) {
        guard verifier.hasCredentials else { return try anonymousWrites.check(request) }
        do throws(AccessError) {
            guard let grant = try grant(request) else { throw .missing }
            guard grant.covers(list) else { throw .notCovered(list: list) }
            guard grant.scope == .write else { throw .readOnly(list: list) }
        } catch {
            throw .access(error)
        }
    }

    /// How long a held request (a long poll) may wait: `wait`, cut short by the token's expiry; `tokenExpires` when
    /// the expiry comes first and the poll must then answer 401.
    func holdTime(wait: Double, grant: Grant?) -> (seconds: Double, tokenExpires: Bool) {
        guard let left = grant?.secondsLeft(at: now()), left < wait else { return (wait, false) }
        return (left, true)
    }

    /// The answer of a held request whose token expired.
    static let expired = ServiceError.access(.expired)
}
