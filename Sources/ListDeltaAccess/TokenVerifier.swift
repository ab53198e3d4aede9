import Foundation
import JWTKit

/// Turns a bearer token into a ``Grant``: a configured static token, or a JWT verified with jwt-kit against
/// ``VerificationKeys``.
///
/// A JWT's header must name one of the configured algorithms (`alg: none` and any other are refused, so an HS256
/// token signed with a public key's bytes is never checked against that key), its signature must verify with a key
/// of that algorithm (and its `kid`, when named), and its claims must follow the contract (``AccessClaims``).
/// Verified tokens are cached until they expire (``GrantCache``): a token is verified once, then looked up.
public final class TokenVerifier: Sendable {
    private let staticTokens: [[UInt8]]
    private let keys: VerificationKeys
    private let cache: GrantCache
    /// Seconds of tolerance for `nbf` and `iat` (clocks differ); `exp` has none.
    public let leeway: Double
    /// The most patterns a token's `lists` may hold.
    public let maximumPatterns: Int
    /// The longest a scoped token may live, in seconds: from its `iat` (or from when it is first seen, without
    /// one) to its `exp`.
    public let maximumLifetimeSeconds: Double
    /// The longest token accepted, in bytes.
    public static let maximumTokenBytes = 8 * 1024

    /// - Parameters:
    ///   - staticTokens: tokens that grant everything (`writeTokens`).
    ///   - keys: the keys scoped tokens are checked with; ``VerificationKeys/none`` refuses every JWT.
    ///   - cacheLimit: the most verified tokens remembered.
    ///   - maximumLifetimeSeconds: the longest a scoped token may live (``maximumLifetimeSeconds``); 24 hours by
    ///     default.
    public init(
        staticTokens: [String], keys: VerificationKeys, leeway: Double = 30, maximumPatterns: Int = 256, cacheLimit: Int = 10_000,
        maximumLifetimeSeconds: Double = 86_400
    ) {
        self.staticTokens = staticTokens.map { Array($0.utf8) }
        self.keys = keys
        self.leeway = leeway
        self.maximumPatterns = maximumPatterns
        self.maximumLifetimeSeconds = maximumLifetimeSeconds
        cache = GrantCache(limit: cacheLimit)
    }

    /// `true` when any credential is configured: writes then need one.
    public var hasCredentials: Bool { !staticTokens.isEmpty || !keys.isEmpty }

    /// The number of verified tokens cached.
    public var cachedTokens: Int { cache.count }

    /// What `token` grants at `now` (Unix seconds).
    /// - Throws: ``AccessError/rejected(_:)`` for a JWT that cannot be used, ``AccessError/unknownToken`` for
    ///   anything else that is not a static token.
    /// - Complexity: a cached token costs a hash lookup; a new one a signature check (HS256 about a microsecond,
    ///   ES256 and RS256 tens of microseconds).
    public func grant(for token: String, now: Double) throws(AccessError) -> Grant {
        let jwtShaped = Self.looksLikeJWT(token)
        // The hot path: a JWT verified before (the cache holds verified JWTs only).
        if jwtShaped, let cached = cache.grant(for: token) {
            do {
                try cached.checkTime(at: now)
            } catch {
                cache.remove(token)
                throw error
            }
            return cached
        }
        if isStaticToken(token) { return .everything }
        guard jwtShaped, !keys.isEmpty else { throw .unknownToken }
        let grant = try verify(token, now: now)
        cache.insert(grant, for: token, now: now)
        return grant
    }

    /// Verifies a JWT: header, signature, then claims.
    private func verify(_ token: String, now: Double) throws(AccessError) -> Grant {
        guard token.utf8.count <= Self.maximumTokenBytes else { throw .rejected("it is longer than \(Self.maximumTokenBytes) bytes") }
        let bytes = Array(token.utf8)
        let header: JWTHeader
        let claims: AccessClaims
        let signature: Data
        do {
            (header, claims, signature) = try DefaultJWTParser().parse(bytes, as: AccessClaims.self)
        } catch {
            throw .rejected("it is not a well-formed JWT (base64url JSON header and claims)")
        }
        guard let algorithm = header.alg else { throw .rejected("its header names no alg") }
        let candidates = keys.candidates(algorithm: algorithm, kid: header.kid)
        guard !candidates.isEmpty else {
            if keys.algorithms.contains(algorithm) { throw .rejected("no configured key has its kid") }
            throw .rejected("alg \(algorithm.prefix(16)) is not accepted here (accepted: \(keys.algorithms.joined(separator: ", ")))")
        }
        // Without a kid, a token may be tried against one key only: never N signature checks per forged token.
        guard header.kid != nil || candidates.count == 1 else {
            throw .rejected("it names no kid, and several configured keys use \(algorithm)")
        }
        // What was signed: the header and the claims as sent, up to the last dot.
        let signingInput = bytes[..<(bytes.lastIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex)]
        let verified = candidates.contains { key in (try? key.algorithm.verify(signature, signs: signingInput)) == true }
        guard verified else { throw .rejected("its signature does not verify") }
        return try claims.grant(now: now, leeway: leeway, maximumPatterns: maximumPatterns, maximumLifetime: maximumLifetimeSeconds)
    }

    private func isStaticToken(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        var found = false
        for candidate in staticTokens where Self.constantTimeEqual(candidate, bytes) { found = true }
        return found
    }

    /// Compares in time that depends only on the lengths, not on where the bytes differ.
    static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }

    /// Three parts separated by dots: judged as a JWT (401 when it is not a good one); anything else that is not a
    /// static token is a wrong token (403), as docs/api.md's Errors section has it.
    static func looksLikeJWT(_ token: String) -> Bool {
        token.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } == 2
    }
}
