import Foundation
import JWTKit
@testable import ListDeltaAccess

/// Keys and tokens for the tests: an HS256 secret, a generated ES256 key pair, a fixed RS256 key pair (RSA key
/// generation is slow; this one was made with `openssl genrsa 2048` for these tests only), and a minter of
/// tokens with any header and claims, the bad ones included.
enum TestKeys {
    static let secret = "test-secret-0123456789-abcdefghij-klmnop"

    static let rsaPrivatePEM = """
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDHfMvfIjrrxAzb
3s/xC8n9Cl5DVuCJo80mt3CGEksVLxhfkNpA5dafrxpdRkDsiBS6n9zOScjiEE/V
7dDPKe8o9oU/EGBJznTToeegPZOoYmRyTyVF9WGZmX23RI/Y1LCZKOSP8AVAkEEi
zmct7MXC9bSz3pTlp8hZK2MC28M/cBj6Dq/VqMctqZsSfElgAcUh7CUNwuktcvz3
wgbTZbfmp8WHoBxilgGiu5GRzssHwsomAte81sexAcGC6Wg/PCICs0L66kyLtRE6
YoaR0eqReRcVbKVsMU33dgyIpY4UZZZ1FPgv2kslhZY6J+aWtdrCRjfF6H97yvA4
viDhcAILAgMBAAECggEABEcjb0jvO7t78+izft2cDeAZPpc883BFNJPxRsuOCDzd
Tr274HGaIgyB1tQ5DWZE3SFGfYOZjWqzu5VNyaBPL6RLUTUYGFBKf96HkA+IYuKe
EtF3R1vIWKBKnatLuZoK1Q39o/r0S3q/p6M54gM81Neq2ClpLTX+469v5rf9vn0U
+YUe20+3SDqmIU5fRd8bAvCcNLfyj1tK7DL9cH5jPGOB+89WdAgZjj5XRZRPTDWL
j9o8DL9pSNMh5kYv6XIfXU2GPR1cLh7U9Zcg+4oMatOVniz5QSTc4lbQlK5wjp8A
wCqgyl55sL7TWE0ZlJInbb9vQOlm/fqB8yV7fMY9kQKBgQD4KdmFe7WNt2GdURdQ
+f6DN2ZwgswqhNBJvmHMzdJvrzlPv2+fbKCCHYzYRlIZZY6MBZxxYJI6h7Iq3PTa
zin5E091OWnxsJVIgECBvkcWEJuyFkBEWr/I/daApylUGRIfyNUY5qlTiBkTmqlT
PqnIDLy5omQm3qtSJkh3Gu/EIwKBgQDNyXNbdFTATYcPgWcyR3zP87LtBhKG+Sy4
7VL1cY02AWDXB/U0GsNDIMw65OaoSR9o0vLShurQ8+ZtHabGaeNFfgmAjTkm0WUY
+va+be5LXSAzYphIM2l/39k7Kze6t65dI+3NG36zMaPeZ+SH5EgcfZFTO5/CfEf1
pGVfVjKU+QKBgQDzA4BYP8GVKnvzowIzMOw0MJ8nFF68UFzrqfx5oyAscCmuV2gG
dUhkwm03KP2ikxnZMnF1cT0hBdrKMJ+yWOsvVuKbh4Kgw+wcGEOTCfLwv4jIBxQe
G8PtHe3dBFTrXrWp3HAZN1+fRgpQcUbZFucJ2LdDDawHiEu6YXTa9czPgwKBgDFN
IxL1AtzzdfkUAno8QD29388DVmr5xWokiWx+INugZuf9YxRxmPg7IlK1xkDpC9pc
N4qSgi0/UaQwp2T/t1BNys7+hoOzROpALd8fjSiHDhDhfSRHFO5q3atcRkS4ftCX
rAAopykdKmo9L7YSzefteWScc0Dv73l9QkAd8Y5ZAoGAZdwu3HCC2YeQcZFafFNC
IkQMqr0x8uf29nPvcm0ncUw7cR4r6G0MYh8y8LZU0g+sNewEPX9wFBGbJZoiUtxw
oYPxJodk8HLj2NpxF5d3EuZAYbWwg6pzZuZ1Q3L4+ypSCDbnSd7P+vj7mW54GcAf
AWUwizwTUARGtkaiepgEYno=
-----END PRIVATE KEY-----
"""

    /// Claims valid from now for `lifetime` seconds.
    /// The service's own claims type is used, every claim optional, so a test can drop or break any of them.
    static func claims(scope: String = "read", lists: [String] = ["a-*"], lifetime: Double = 600, now: Double = Date().timeIntervalSince1970) -> AccessClaims {
        AccessClaims(exp: .at(now + lifetime), nbf: nil, iat: .at(now.rounded(.down)), scope: scope, lists: lists)
    }

    /// A token signed HS256 with `secret`.
    static func hs256(_ claims: AccessClaims, secret: String = TestKeys.secret) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(claims)
    }

    /// A token signed ES256 with `key`, naming `kid`.
    static func es256(_ claims: AccessClaims, key: ES256PrivateKey, kid: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// A token signed RS256 with the fixture key, naming `kid`.
    static func rs256(_ claims: AccessClaims, kid: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(rsa: try Insecure.RSA.PrivateKey(pem: rsaPrivatePEM), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// A JWKS of the ES256 key's public half (`kid` "ec-1") and the RSA fixture's (`kid` "rsa-1").
    static func jwks(ec key: ES256PrivateKey) throws -> [UInt8] {
        let (x, y) = key.publicKey.parameters!
        let rsa = try Insecure.RSA.PrivateKey(pem: rsaPrivatePEM).publicKey.getKeyPrimitives()
        let keys: [[String: String]] = [
            ["kty": "EC", "crv": "P-256", "kid": "ec-1", "use": "sig", "x": x, "y": y],
            ["kty": "RSA", "kid": "rsa-1", "alg": "RS256", "n": base64URL(rsa.modulus), "e": base64URL(rsa.publicExponent)],
        ]
        return Array(try JSONSerialization.data(withJSONObject: ["keys": keys]))
    }

    /// The RSA fixture's public key in PEM: the bytes an algorithm-confusion attack signs HS256 tokens with.
    static var rsaPublicPEM: String {
        get throws { try Insecure.RSA.PrivateKey(pem: rsaPrivatePEM).publicKey.pemRepresentation }
    }

    /// A token with header `{"alg":"none"}` and no signature.
    static func unsigned(_ claims: AccessClaims) throws -> String {
        let header = base64URL(Data(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = try encoded(claims)
        return "\(header).\(payload)."
    }

    /// Claims as a JWT carries them: base64url JSON, dates in Unix seconds.
    static func encoded(_ claims: AccessClaims) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return base64URL(try encoder.encode(claims))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension ExpirationClaim {
    static func at(_ seconds: Double) -> ExpirationClaim { ExpirationClaim(value: Date(timeIntervalSince1970: seconds)) }
}

extension NotBeforeClaim {
    static func at(_ seconds: Double) -> NotBeforeClaim { NotBeforeClaim(value: Date(timeIntervalSince1970: seconds)) }
}

extension IssuedAtClaim {
    static func at(_ seconds: Double) -> IssuedAtClaim { IssuedAtClaim(value: Date(timeIntervalSince1970: seconds)) }
}
