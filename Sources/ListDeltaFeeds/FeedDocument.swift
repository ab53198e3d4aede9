public import ListDeltaCore

/// A feed mapped to a list document's JSON, with what the mapping left out.
public struct FeedDocument: Sendable, Equatable {
    /// The write body: `{"kind":"array","title","items"}` or `{"kind":"sections","sections"}`.
    public var json: JSONValue
    /// Entries dropped because an earlier entry had the same id.
    public var duplicates: Int
    /// The number of items in the document.
    public var itemCount: Int

    /// A document from its parts.
    public init(json: JSONValue, duplicates: Int, itemCount: Int) {
        self.json = json
        self.duplicates = duplicates
        self.itemCount = itemCount
    }
}
