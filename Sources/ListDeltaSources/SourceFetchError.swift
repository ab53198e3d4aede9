/// Why a fetch brought nothing usable. A fetch that fails changes no list; the service shows the error in the
/// source's state as a problem and backs off.
public struct SourceFetchError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The URL (or a redirect's target) is not one a source may fetch: scheme, form, or a file outside the
        /// configured directory.
        case invalidURL
        /// The host, or an address it resolves to, is not allowed by the host policy.
        case refusedHost
        /// The name did not resolve, the connection failed or broke.
        case network
        /// No complete answer within the timeout.
        case timeout
        /// The server answered with an error status (`status` says which).
        case httpStatus
        /// The body (after gzip inflation) is larger than the configured cap.
        case tooLarge
        /// More than the allowed redirects, or a redirect without a usable `Location`.
        case redirects
        /// The body claims a coding that cannot be decoded.
        case badEncoding
        /// The file is missing or unreadable.
        case file
    }

    public var kind: Kind
    public var message: String
    /// The HTTP status of the answer that failed, when there was one.
    public var status: Int?
    /// Seconds the server asked us to wait (`Retry-After` on 429 and 503).
    public var retryAfter: Double?

    public init(_ kind: Kind, _ message: String, status: Int? = nil, retryAfter: Double? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}
