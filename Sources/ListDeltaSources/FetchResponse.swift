public import Foundation

/// What a fetch brought.
public struct FetchResponse: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        /// Nothing changed since the validators (HTTP 304, or a file with the same change time and size).
        case notModified
        /// The content, inflated.
        case content([UInt8])
    }

    /// The HTTP status of the final answer; `nil` for files.
    public var status: Int?
    public var body: Body
    /// The validators to send next time (the previous ones after a 304).
    public var validators: FetchValidators
    /// The charset of `Content-Type`, if any (for feeds without an encoding declaration).
    public var charset: String?
    /// The URL that answered, after redirects (the base for relative links); `nil` for files.
    public var finalURL: URL?
    /// Bytes of body received after inflation (0 for `notModified`).
    public var byteCount: Int {
        if case .content(let bytes) = body { return bytes.count }
        return 0
    }

    public init(status: Int?, body: Body, validators: FetchValidators, charset: String? = nil, finalURL: URL? = nil) {
        self.status = status
        self.body = body
        self.validators = validators
        self.charset = charset
        self.finalURL = finalURL
    }
}
