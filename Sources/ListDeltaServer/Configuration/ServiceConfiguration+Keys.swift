import Foundation
public import ListDeltaAccess

extension ServiceConfiguration {
    /// The keys of `jwtSecret` and the `jwtPublicKeys` file, built once at start-up (``VerificationKeys/none``
    /// when neither is set).
    /// - Throws: `ConfigurationError` for an unreadable file or a key that cannot be used.
    public func verificationKeys() async throws(ConfigurationError) -> VerificationKeys {
        guard usesScopedTokens else { return .none }
        var jwks: [UInt8]?
        if !jwtPublicKeys.isEmpty {
            guard let data = FileManager.default.contents(atPath: jwtPublicKeys) else {
                throw ConfigurationError("cannot read jwtPublicKeys \(jwtPublicKeys)")
            }
            guard data.count <= 1 << 20 else { throw ConfigurationError("jwtPublicKeys \(jwtPublicKeys) is larger than 1 MiB") }
            jwks = Array(data)
        }
        do {
            return try await VerificationKeys.load(hmacSecret: jwtSecret.isEmpty ? nil : jwtSecret, jwks: jwks)
        } catch {
            throw ConfigurationError(error.description)
        }
    }
}
