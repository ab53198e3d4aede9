/// Why a request may not do what it asks. None of these ever carries the token itself.
public enum AccessError: Error, Equatable, Sendable {
    /// No credential was sent, and one is needed (401).
    case missing
    /// A scoped token that cannot be used: malformed, expired, not yet valid, badly signed, an algorithm not
    /// configured, or claims that break the rules (401).
    case rejected(String)
    /// A token that is neither a configured static token nor a JWT (403: a wrong token).
    case unknownToken
    /// A valid token whose `lists` do not cover `list` (403).
    case notCovered(list: String)
    /// A valid read-scoped token used for a write (403).
    case readOnly(list: String)
    /// The credential was sent in a way the contract refuses (400): `access_token` on a write, or both a header
    /// and `access_token`.
    case badRequest(String)

    /// A token past its `exp`.
    public static let expired = AccessError.rejected("the token expired")

    /// The HTTP status it answers with.
    public var status: Int {
        switch self {
        case .missing, .rejected: return 401
        case .unknownToken, .notCovered, .readOnly: return 403
        case .badRequest: return 400
        }
    }

    /// The problem's detail.
    public var detail: String {
        switch self {
        case .missing: return "this request needs Authorization: Bearer <token> (or access_token=<token> on a GET)"
        case .rejected(let reason): return "the token is not accepted: \(reason)"
        case .unknownToken: return "the bearer token is not accepted"
        case .notCovered(let list): return "the token does not cover the list \"\(list)\""
        case .readOnly(let list): return "the token may only read; writing \"\(list)\" needs scope \"write\""
        case .badRequest(let reason): return reason
        }
    }
}
