import Foundation
import JWTKit

/// The keys scoped tokens are checked against: an HS256 secret and the RS256/ES256 public keys of a JWKS, each
/// held as jwt-kit's own algorithm. Loaded once, at start-up (jwt-kit builds keys inside its actor, hence `async`);
/// verifying with them afterwards is synchronous.
public struct VerificationKeys: Sendable {
    /// One key: its `kid` (none for the secret) and the algorithm that verifies with it.
    struct Key: Sendable {
        let id: String?
        let algorithm: any JWTAlgorithm
    }

    let keys: [Key]

    /// No keys: scoped tokens are not accepted.
    public static let none = VerificationKeys(keys: [])

    /// The shortest HS256 secret accepted, in bytes (RFC 7518 §3.2: at least the hash's 256 bits).
    public static let minimumSecretBytes = 32

    /// `true` when no key is configured.
    public var isEmpty: Bool { keys.isEmpty }

    /// The algorithms tokens may be signed with, sorted (`ES256`, `HS256`, `RS256`).
    public var algorithms: [String] { Array(Set(keys.map(\.algorithm.name))).sorted() }

    /// Builds the keys from an HS256 secret and a JWKS document (either may be absent).
    ///
    /// A JWKS key must have a `kid`, and `kty` `RSA` (RS256) or `EC` with `crv` `P-256` (ES256); its `alg`, when
    /// given, must agree. Private keys are refused: the service only verifies.
    /// - Throws: `KeySetupError` naming the key that cannot be used.
    public static func load(hmacSecret: String?, jwks: [UInt8]?) async throws(KeySetupError) -> VerificationKeys {
        var keys: [Key] = []
        if let hmacSecret {
            let collection = try await hs256Collection(secret: hmacSecret)
            do {
                keys.append(Key(id: nil, algorithm: try await collection.getKey()))
            } catch {
                throw KeySetupError("jwtSecret cannot be used: \(error)")
            }
        }
        if let jwks {
            keys += try await publicKeys(jwks)
        }
        return VerificationKeys(keys: keys)
    }

    /// A jwt-kit key collection holding `secret` as its HS256 key: what verifies and what mints.
    /// - Throws: `KeySetupError` for a secret shorter than ``minimumSecretBytes``.
    static func hs256Collection(secret: String) async throws(KeySetupError) -> JWTKeyCollection {
        guard secret.utf8.count >= minimumSecretBytes else {
            throw KeySetupError("jwtSecret must be at least \(minimumSecretBytes) bytes")
        }
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return collection
    }

    private static func publicKeys(_ bytes: [UInt8]) async throws(KeySetupError) -> [Key] {
        let set: JWKS
        do {
            set = try JSONDecoder().decode(JWKS.self, from: Data(bytes))
        } catch {
            throw KeySetupError("jwtPublicKeys is not a JWKS document ({\"keys\": [...]}): \(error)")
        }
        guard !set.keys.isEmpty else { throw KeySetupError("jwtPublicKeys holds no keys") }
        let collection = JWTKeyCollection()
        var keys: [Key] = []
        for (index, var jwk) in set.keys.enumerated() {
            let name = "jwtPublicKeys key \(index)"
            guard let kid = jwk.keyIdentifier?.string, !kid.isEmpty else { throw KeySetupError("\(name) has no kid") }
            guard jwk.privateExponent == nil else { throw KeySetupError("\(name) (\(kid)) is a private key; give public keys only") }
            let algorithm: JWK.Algorithm
            switch jwk.keyType {
            case .rsa: algorithm = .rs256
            case .ecdsa where jwk.curve == .ecdsa(.p256): algorithm = .es256
            default: throw KeySetupError("\(name) (\(kid)) must be an RSA key (RS256) or a P-256 EC key (ES256)")
            }
            if let stated = jwk.algorithm, stated != algorithm {
                throw KeySetupError("\(name) (\(kid)) has alg \(stated.rawValue); only \(algorithm.rawValue) is accepted for its key type")
            }
            jwk.algorithm = algorithm
            do {
                try await collection.add(jwk: jwk)
                keys.append(Key(id: kid, algorithm: try await collection.getKey(for: JWKIdentifier(string: kid), alg: algorithm.rawValue)))
            } catch {
                throw KeySetupError("\(name) (\(kid)) cannot be used: \(error)")
            }
        }
        return keys
    }

    /// The keys that may have signed a token whose header names `algorithm` and `kid`: those of that algorithm
    /// and, when the header names a kid, that kid.
    func candidates(algorithm: String, kid: String?) -> [Key] {
        keys.filter { $0.algorithm.name == algorithm && (kid == nil || $0.id == nil || $0.id == kid) }
    }
}
