/// The two renderings of a diff.
public enum DiffFormat: String, Sendable, Hashable {
    /// The batch diff: deleted, inserted, moved and updated sections and items, as UIKit applies them.
    case batch
    /// An RFC 6902 JSON Patch.
    case jsonPatch = "json-patch"

    /// The media type of the rendering.
    public var contentType: String {
        self == .batch ? "application/json" : "application/json-patch+json"
    }
}
