/// Turns a write (the short array form, the long form, or the sections form of API.md) into a validated
/// document through the provider that fits it.
public struct DataProviderFactory: Sendable {
    /// The bounds every write is checked against.
    public var limits: DocumentLimits

    /// Creates a factory.
    public init(limits: DocumentLimits = DocumentLimits()) {
        self.limits = limits
    }

    /// The provider that fits `body`, plus the cell registry it names.
    ///
    /// Checks every rule of API.md: ids of 1 to 256 UTF-8 bytes, item ids unique across the list, section ids
    /// unique, the body's `id` equal to `listID`, cells resolved from the registry, limits on sections, items and
    /// depth. A `revision` member is ignored.
    /// - Throws: `DocumentError` with a JSON Pointer into `body`.
    /// - Complexity: O(*n*) in the size of the body.
    public func makeProvider(from body: JSONValue, listID: String) throws(DocumentError) -> (provider: any DataProvider, cells: [String: String]?) {
        var reader = WriteBodyReader(limits: limits)
        return try reader.read(body, listID: listID)
    }

    /// The validated document for `body` at `revision`.
    /// - Throws: `DocumentError` with a JSON Pointer into `body`.
    /// - Complexity: O(*n*) in the size of the body.
    public func makeDocument(from body: JSONValue, listID: String, revision: Int) throws(DocumentError) -> ListDocument {
        let (provider, cells) = try makeProvider(from: body, listID: listID)
        return provider.makeDocument(id: listID, revision: revision, cells: cells)
    }
}
