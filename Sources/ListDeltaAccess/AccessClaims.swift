import Foundation
import JWTKit

/// The claims of a scoped token, as sent: every one optional here so that a missing one is named in the answer
/// rather than lost in a decoding error. ``TokenVerifier`` checks them after the signature.
struct AccessClaims: JWTPayload {
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?
    var iat: IssuedAtClaim?
    var scope: String?
    var lists: [String]?

    /// Not used: the verifier checks the claims itself, synchronously, at the time it is given.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The grant these claims make at `now`, with `leeway` seconds of tolerance for `nbf` and `iat`.
    /// - Parameter maximumLifetime: the most seconds from `iat` (or from `now`, without one) to `exp`.
    /// - Throws: ``AccessError/rejected(_:)`` naming the first rule broken.
    func grant(now: Double, leeway: Double, maximumPatterns: Int, maximumLifetime: Double) throws(AccessError) -> Grant {
        guard let exp else { throw .rejected("it has no exp claim") }
        let expiresAt = exp.value.timeIntervalSince1970
        let issuedAt = iat.map { min($0.value.timeIntervalSince1970, now) } ?? now
        guard expiresAt.isFinite, expiresAt - issuedAt <= maximumLifetime else {
            throw .rejected("it lives longer than \(Int(maximumLifetime)) s (exp - iat): mint shorter-lived tokens")
        }
        guard let scopeText = scope else { throw .rejected("it has no scope claim (read or write)") }
        guard let scope = Grant.Scope(rawValue: scopeText) else {
            throw .rejected("its scope must be \"read\" or \"write\", not \"\(scopeText.prefix(20))\"")
        }
        guard let lists else { throw .rejected("it has no lists claim (an array of list-id patterns)") }
        guard lists.count <= maximumPatterns else { throw .rejected("its lists claim names more than \(maximumPatterns) patterns") }
        var patterns: [ListPattern] = []
        for (index, text) in lists.enumerated() {
            guard let pattern = ListPattern(text) else {
                throw .rejected("lists[\(index)] is not a list-id pattern (A-Z a-z 0-9 . _ - and *)")
            }
            patterns.append(pattern)
        }
        if let iat, iat.value.timeIntervalSince1970 > now + leeway { throw .rejected("it was issued in the future (iat)") }
        let grant = Grant(
            scope: scope, patterns: patterns, expiresAt: expiresAt,
            notBefore: nbf.map { $0.value.timeIntervalSince1970 - leeway })
        try grant.checkTime(at: now)
        return grant
    }
}
