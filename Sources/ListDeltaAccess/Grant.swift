/// What a verified credential allows: a scope, the lists it covers and until when.
public struct Grant: Sendable, Equatable {
    /// Read, or write (which includes read).
    public enum Scope: String, Sendable, Equatable {
        case read
        case write
    }

    /// What the credential may do.
    public let scope: Scope
    /// The lists it covers; `nil` for every list (a static token).
    public let patterns: [ListPattern]?
    /// The first second (Unix time) it is no longer valid; `nil` when it never expires (a static token).
    public let expiresAt: Double?
    /// The first second it is valid, less the leeway; `nil` when the token named no `nbf`.
    public let notBefore: Double?

    /// A static write token: every list, forever.
    public static let everything = Grant(scope: .write, patterns: nil, expiresAt: nil, notBefore: nil)

    public init(scope: Scope, patterns: [ListPattern]?, expiresAt: Double?, notBefore: Double?) {
        self.scope = scope
        self.patterns = patterns
        self.expiresAt = expiresAt
        self.notBefore = notBefore
    }

    /// `true` when the credential covers the list `id`.
    /// - Complexity: O(*p*·*n*·*m*) for *p* patterns; O(1) for a static token.
    public func covers(_ id: String) -> Bool {
        guard let patterns else { return true }
        return patterns.contains { $0.matches(id) }
    }

    /// `true` when it covers every list (a static token).
    public var coversEveryList: Bool { patterns == nil }

    /// Seconds from `now` until it expires; `nil` when it never does.
    public func secondsLeft(at now: Double) -> Double? {
        expiresAt.map { max(0, $0 - now) }
    }

    /// Checks the validity window at `now`.
    /// - Throws: ``AccessError/rejected(_:)`` for an expired or not yet valid token.
    public func checkTime(at now: Double) throws(AccessError) {
        if let expiresAt, now >= expiresAt { throw .expired }
        if let notBefore, now < notBefore { throw .rejected("the token is not valid yet (nbf)") }
    }
}
