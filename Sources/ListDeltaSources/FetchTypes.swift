public import Foundation

/// What a fetch asks for: where, and the validators of the last content it got (for a conditional request).
public struct FetchRequest: Sendable, Equatable {
    public var location: SourceLocation
    public var validators: FetchValidators

    public init(location: SourceLocation, validators: FetchValidators = FetchValidators()) {
        self.location = location
        self.validators = validators
    }
}

/// What identifies content already held: an HTTP `ETag` and `Last-Modified`, or a file's change time and size.
public struct FetchValidators: Sendable, Equatable, Codable {
    public var entityTag: String?
    public var lastModified: String?

    public init(entityTag: String? = nil, lastModified: String? = nil) {
        self.entityTag = entityTag
        self.lastModified = lastModified
    }

    public var isEmpty: Bool { entityTag == nil && lastModified == nil }
}

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

/// Anything that fetches a source's content: the web, a file, a test double. Calls block their thread (the
/// service runs them on its own fetch workers, never on an event loop).
public protocol SourceFetching: Sendable {
    /// Fetches `request`, conditionally when it carries validators.
    /// - Throws: `SourceFetchError` for anything that brought no usable content.
    func fetch(_ request: FetchRequest) throws(SourceFetchError) -> FetchResponse
}

/// The bounds every fetch keeps.
public struct FetchLimits: Sendable, Equatable {
    /// The most bytes of body, after inflation.
    public var maximumBytes: Int
    /// The time one fetch may take, redirects included.
    public var timeoutSeconds: Double
    /// The most redirects followed.
    public var maximumRedirects: Int

    public init(maximumBytes: Int = 10 << 20, timeoutSeconds: Double = 15, maximumRedirects: Int = 5) {
        self.maximumBytes = maximumBytes
        self.timeoutSeconds = timeoutSeconds
        self.maximumRedirects = maximumRedirects
    }
}
