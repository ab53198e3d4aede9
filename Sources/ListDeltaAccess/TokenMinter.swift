public import Foundation
import JWTKit

/// Mints HS256 scoped tokens with the service's `jwtSecret`: for `listdelta token`, the benchmark and tests. An
/// application's backend mints its own with any JWT library (docs/access.md, Minting tokens, shows how).
public struct TokenMinter: Sendable {
    private let collection: JWTKeyCollection

    private init(collection: JWTKeyCollection) {
        self.collection = collection
    }

    /// A minter signing with `secret` (at least ``VerificationKeys/minimumSecretBytes`` bytes).
    /// - Throws: `KeySetupError` for a secret too short.
    public static func hs256(secret: String) async throws(KeySetupError) -> TokenMinter {
        TokenMinter(collection: try await VerificationKeys.hs256Collection(secret: secret))
    }

    /// A token granting `scope` on the lists matching `lists`, valid from now for `lifetime` seconds.
    public func token(scope: Grant.Scope, lists: [String], lifetime: Double, now: Date = Date()) async throws -> String {
        let claims = AccessClaims(
            exp: ExpirationClaim(value: now.addingTimeInterval(lifetime)), nbf: nil,
            iat: IssuedAtClaim(value: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))),
            scope: scope.rawValue, lists: lists)
        return try await collection.sign(claims)
    }
}
