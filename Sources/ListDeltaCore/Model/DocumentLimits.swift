/// Bounds a write must respect.
public struct DocumentLimits: Sendable, Equatable {
    /// The most sections a list may have. The default is 10,000.
    public var maximumSections: Int = 10_000
    /// The most items a list may have, all sections together. The default is 250,000.
    public var maximumItems: Int = 250_000
    /// The deepest nesting of a whole document, models included. The default is 64.
    public var maximumDepth: Int = 64
    /// The most UTF-8 bytes in an item or section id. The default is 256 (docs/api.md, The document).
    public var maximumIDBytes: Int = 256
    /// The largest document, as its compact JSON (how it is served and stored), in bytes; also the most a JSON
    /// Patch may copy in all. The default is 16 MiB.
    public var maximumDocumentBytes: Int = 16 << 20

    /// The defaults.
    public init() {}

    /// Whether `id` may name an item or a section: 1 to ``maximumIDBytes`` UTF-8 bytes.
    public func allowsID(_ id: String) -> Bool {
        let count = id.utf8.count
        return count >= 1 && count <= maximumIDBytes
    }
}
