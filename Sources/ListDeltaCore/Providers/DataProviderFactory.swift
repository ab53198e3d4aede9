/// Turns a write (the short array form, the long form, or the sections form of docs/api.md) into a validated
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
    /// Checks every rule of docs/api.md: ids of 1 to 256 UTF-8 bytes, item ids unique across the list, section ids
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

    /// The validated document for the JSON text `json`, read straight into sections and items without a JSON tree
    /// for its structure: the fast way to take a large write.
    ///
    /// Returns `nil` for any body it does not read without doubt (every invalid one among them): then parse it with
    /// `JSONReader(maximumDepth:)` and call `makeDocument(from:listID:revision:)`, which decides and words any error.
    /// What this returns, that path returns too.
    /// - Parameter maximumDepth: The `JSONReader` bound the general path would parse with.
    /// - Complexity: O(*n*) in the size of the body.
    public func readDocument(json: [UInt8], listID: String, revision: Int, maximumDepth: Int) -> ListDocument? {
        json.withUnsafeBufferPointer { bytes in
            var reader = TypedWriteBodyReader(bytes: bytes, limits: limits, maximumDepth: maximumDepth)
            guard let (provider, cells) = try? reader.read(listID: listID) else { return nil }
            return provider.makeDocument(id: listID, revision: revision, cells: cells)
        }
    }
}
