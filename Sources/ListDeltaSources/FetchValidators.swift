public import Foundation

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
