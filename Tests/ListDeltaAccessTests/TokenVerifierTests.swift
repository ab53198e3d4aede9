import Foundation
import JWTKit
import Testing
@testable import ListDeltaAccess

@Suite struct TokenVerifierTests {
    let now = Date().timeIntervalSince1970

    private func verifier(static tokens: [String] = [], secret: Bool = true, jwks: [UInt8]? = nil) async throws -> TokenVerifier {
        let keys = try await VerificationKeys.load(hmacSecret: secret ? TestKeys.secret : nil, jwks: jwks)
        return TokenVerifier(staticTokens: tokens, keys: keys)
    }

    private func rejection(_ verifier: TokenVerifier, _ token: String, at time: Double? = nil) -> AccessError? {
        do {
            _ = try verifier.grant(for: token, now: time ?? now)
            return nil
        } catch {
            return error
        }
    }

    @Test func aValidHS256TokenGrantsItsScopeOnItsLists() async throws {
        let verifier = try await verifier()
        let token = try await TestKeys.hs256(TestKeys.claims(scope: "write", lists: ["a-*", "b"], now: now))
        let grant = try verifier.grant(for: token, now: now)
        #expect(grant.scope == .write)
        #expect(grant.covers("a-1") && grant.covers("b") && !grant.covers("c"))
        #expect(grant.expiresAt == now + 600)
    }

    @Test func staticTokensGrantEverythingAndOtherStringsAreWrongTokens() async throws {
        let verifier = try await verifier(static: ["static-write-token"])
        #expect(try verifier.grant(for: "static-write-token", now: now) == .everything)
        #expect(rejection(verifier, "static-write-token2") == .unknownToken)
        #expect(rejection(verifier, "not a jwt") == .unknownToken)
    }

    @Test func timeClaimsAreChecked() async throws {
        let verifier = try await verifier()
        var expired = TestKeys.claims(now: now)
        expired.exp = .at(now - 1)
        #expect(rejection(verifier, try await TestKeys.hs256(expired)) == .rejected("the token expired"))
        var early = TestKeys.claims(now: now)
        early.nbf = .at(now + 120)
        #expect(rejection(verifier, try await TestKeys.hs256(early)) == .rejected("the token is not valid yet (nbf)"))
        // Within the 30 s leeway, nbf and iat in the near future are accepted (clocks differ).
        var skewed = TestKeys.claims(now: now)
        skewed.nbf = .at(now + 20)
        skewed.iat = .at(now + 20)
        #expect(rejection(verifier, try await TestKeys.hs256(skewed)) == nil)
        var future = TestKeys.claims(now: now)
        future.iat = .at(now + 120)
        #expect(rejection(verifier, try await TestKeys.hs256(future)) == .rejected("it was issued in the future (iat)"))
    }

    @Test func aTokenLivesAtMostTheMaximumLifetime() async throws {
        let keys = try await VerificationKeys.load(hmacSecret: TestKeys.secret, jwks: nil)
        let verifier = TokenVerifier(staticTokens: [], keys: keys, maximumLifetimeSeconds: 3_600)
        let tooLong = AccessError.rejected("it lives longer than 3600 s (exp - iat): mint shorter-lived tokens")
        var forever = TestKeys.claims(now: now)
        forever.exp = .at(1e300)
        #expect(rejection(verifier, try await TestKeys.hs256(forever)) == tooLong)
        var longFromNow = TestKeys.claims(now: now)
        longFromNow.iat = nil
        longFromNow.exp = .at(now + 3_700)
        #expect(rejection(verifier, try await TestKeys.hs256(longFromNow)) == tooLong)
        // From iat: an hour-long token issued half an hour ago is fine; a two-hour one issued an hour ago is not.
        var issuedEarlier = TestKeys.claims(now: now)
        issuedEarlier.iat = .at(now - 1_800)
        issuedEarlier.exp = .at(now + 1_800)
        #expect(rejection(verifier, try await TestKeys.hs256(issuedEarlier)) == nil)
        issuedEarlier.iat = .at(now - 3_600)
        issuedEarlier.exp = .at(now + 3_600)
        #expect(rejection(verifier, try await TestKeys.hs256(issuedEarlier)) == tooLong)
    }

    @Test func claimsMustFollowTheContract() async throws {
        let verifier = try await verifier()
        var noExp = TestKeys.claims(now: now)
        noExp.exp = nil
        #expect(rejection(verifier, try await TestKeys.hs256(noExp)) == .rejected("it has no exp claim"))
        var admin = TestKeys.claims(now: now)
        admin.scope = "admin"
        #expect(rejection(verifier, try await TestKeys.hs256(admin)) == .rejected("its scope must be \"read\" or \"write\", not \"admin\""))
        var noLists = TestKeys.claims(now: now)
        noLists.lists = nil
        #expect(rejection(verifier, try await TestKeys.hs256(noLists))?.status == 401)
        var badPattern = TestKeys.claims(now: now)
        badPattern.lists = ["a/b"]
        #expect(rejection(verifier, try await TestKeys.hs256(badPattern))?.status == 401)
    }

    @Test func badSignaturesAndForeignAlgorithmsAreRefused() async throws {
        let ec = ES256PrivateKey()
        let verifier = try await verifier(jwks: try TestKeys.jwks(ec: ec))
        let claims = TestKeys.claims(now: now)
        // Signed with another secret.
        let other = try await TestKeys.hs256(claims, secret: "another-secret-0123456789-abcdefghijk")
        #expect(rejection(verifier, other) == .rejected("its signature does not verify"))
        // The claims changed after signing.
        let good = try await TestKeys.hs256(claims)
        let parts = good.split(separator: ".")
        var widened = claims
        widened.lists = ["*"]
        let tampered = "\(parts[0]).\(try TestKeys.encoded(widened)).\(parts[2])"
        #expect(rejection(verifier, tampered) == .rejected("its signature does not verify"))
        // alg none.
        #expect(rejection(verifier, try TestKeys.unsigned(claims)) == .rejected("alg none is not accepted here (accepted: ES256, HS256, RS256)"))
        // ES256 with a key nobody configured, and a kid nobody knows.
        let stranger = try await TestKeys.es256(claims, key: ES256PrivateKey(), kid: "ec-1")
        #expect(rejection(verifier, stranger) == .rejected("its signature does not verify"))
        let unknownKid = try await TestKeys.es256(claims, key: ec, kid: "ec-9")
        #expect(rejection(verifier, unknownKid) == .rejected("no configured key has its kid"))
        // Not base64url JSON.
        #expect(rejection(verifier, "eyJhbGciOiJIUzI1NiJ9.bm90IGpzb24.c2ln") == .rejected("it is not a well-formed JWT (base64url JSON header and claims)"))
    }

    @Test func anHS256TokenSignedWithThePublicKeyIsRefused() async throws {
        // Algorithm confusion: without a secret configured, HS256 is no accepted algorithm at all; with one, the
        // token is checked against the secret, never against the public key's bytes.
        let claims = TestKeys.claims(now: now)
        let confused = try await TestKeys.hs256(claims, secret: try TestKeys.rsaPublicPEM)
        let publicOnly = try await verifier(secret: false, jwks: try TestKeys.jwks(ec: ES256PrivateKey()))
        #expect(rejection(publicOnly, confused) == .rejected("alg HS256 is not accepted here (accepted: ES256, RS256)"))
        let both = try await verifier(secret: true, jwks: try TestKeys.jwks(ec: ES256PrivateKey()))
        #expect(rejection(both, confused) == .rejected("its signature does not verify"))
    }

    @Test func publicKeyTokensVerify() async throws {
        let ec = ES256PrivateKey()
        let verifier = try await verifier(secret: false, jwks: try TestKeys.jwks(ec: ec))
        let es = try await TestKeys.es256(TestKeys.claims(scope: "write", lists: ["x"], now: now), key: ec, kid: "ec-1")
        #expect(try verifier.grant(for: es, now: now).scope == .write)
        let rs = try await TestKeys.rs256(TestKeys.claims(lists: ["y-*"], now: now), kid: "rsa-1")
        #expect(try verifier.grant(for: rs, now: now).covers("y-2"))
        // An RS256 token naming the EC key's kid finds no RS256 key of that kid.
        let crossed = try await TestKeys.rs256(TestKeys.claims(now: now), kid: "ec-1")
        #expect(rejection(verifier, crossed) == .rejected("no configured key has its kid"))
    }

    @Test func aTokenWithoutKidMayNotBeTriedAgainstSeveralKeys() async throws {
        let first = ES256PrivateKey()
        let second = ES256PrivateKey()
        var set = try JSONSerialization.jsonObject(with: Data(try TestKeys.jwks(ec: first))) as! [String: [[String: String]]]
        var other = set["keys"]![0]
        (other["x"], other["y"]) = second.publicKey.parameters!
        other["kid"] = "ec-2"
        set["keys"]!.append(other)
        let verifier = try await verifier(secret: false, jwks: Array(try JSONSerialization.data(withJSONObject: set)))
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: second)
        let withoutKid = try await keys.sign(TestKeys.claims(now: now))
        #expect(rejection(verifier, withoutKid) == .rejected("it names no kid, and several configured keys use ES256"))
        #expect(try verifier.grant(for: try await TestKeys.es256(TestKeys.claims(now: now), key: second, kid: "ec-2"), now: now).covers("a-1"))
    }

    @Test func aVerifiedTokenIsCachedUntilItExpires() async throws {
        let verifier = try await verifier()
        let token = try await TestKeys.hs256(TestKeys.claims(lifetime: 60, now: now))
        _ = try verifier.grant(for: token, now: now)
        _ = try verifier.grant(for: token, now: now + 30)
        #expect(verifier.cachedTokens == 1)
        // Past its exp, the cached grant is refused and dropped.
        #expect(rejection(verifier, token, at: now + 60) == .rejected("the token expired"))
        #expect(verifier.cachedTokens == 0)
        // Failures are not cached.
        #expect(rejection(verifier, try await TestKeys.hs256(TestKeys.claims(now: now), secret: "wrong-secret-0123456789-abcdefghijklm")) != nil)
        #expect(verifier.cachedTokens == 0)
    }

    @Test func theCacheIsBounded() async throws {
        let keys = try await VerificationKeys.load(hmacSecret: TestKeys.secret, jwks: nil)
        let verifier = TokenVerifier(staticTokens: [], keys: keys, cacheLimit: 3)
        for index in 0..<10 {
            let token = try await TestKeys.hs256(TestKeys.claims(lists: ["l-\(index)"], now: now))
            #expect(try verifier.grant(for: token, now: now).covers("l-\(index)"))
        }
        #expect(verifier.cachedTokens <= 3)
    }

    @Test func unusableKeysAreReportedAtStartUp() async throws {
        await #expect(throws: KeySetupError.self) { try await VerificationKeys.load(hmacSecret: "short", jwks: nil) }
        await #expect(throws: KeySetupError.self) { try await VerificationKeys.load(hmacSecret: nil, jwks: Array("{}".utf8)) }
        let noKid = Array(#"{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}]}"#.utf8)
        await #expect(throws: KeySetupError("jwtPublicKeys key 0 has no kid")) { try await VerificationKeys.load(hmacSecret: nil, jwks: noKid) }
        let ec = ES256PrivateKey()
        let (x, y) = ec.publicKey.parameters!
        let wrongAlg = Array(#"{"keys":[{"kty":"EC","crv":"P-256","kid":"k","alg":"RS256","x":"\#(x)","y":"\#(y)"}]}"#.utf8)
        await #expect(throws: KeySetupError.self) { try await VerificationKeys.load(hmacSecret: nil, jwks: wrongAlg) }
    }
}
