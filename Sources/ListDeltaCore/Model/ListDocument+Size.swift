extension ListItem {
    /// The length of the item's compact JSON (``jsonValue`` as ``JSONWriter`` writes it), or `nil` once it passes
    /// `limit`.
    /// - Complexity: O(min(*m*, `limit`)) in the size of the model.
    public func compactJSONLength(upTo limit: Int) -> Int? {
        // {"id":…,"type":…,"cell":…,"model":…}
        var length = 2 + 5 + JSONValue.stringLength(id) + 8 + (cell.map(JSONValue.stringLength) ?? 4) + 9
        if let type { length += 8 + JSONValue.stringLength(type) }
        guard length <= limit, let model = model.compactJSONLength(upTo: limit - length) else { return nil }
        return length + model
    }
}

extension ListDocument {
    /// The length of the document's compact JSON (``jsonValue`` as ``JSONWriter`` writes it, which is how it is
    /// served and stored), or `nil` once it passes `limit`: the size a document is bounded by
    /// (``DocumentLimits/maximumDocumentBytes``).
    /// - Complexity: O(min(*n*, `limit`)) in the size of the document: the count stops as soon as it passes.
    public func compactJSONLength(upTo limit: Int) -> Int? {
        guard var length = jsonValue(sections: []).compactJSONLength(upTo: limit) else { return nil }
        length += max(0, sections.count - 1)
        for section in sections {
            // The header's members, then ,"items":[…] before its closing brace.
            guard let sectionHeader = JSONValue.object(section.header.jsonObject).compactJSONLength(upTo: limit - length) else { return nil }
            length += sectionHeader + 11 + max(0, section.items.count - 1)
            for item in section.items {
                guard length <= limit, let itemLength = item.compactJSONLength(upTo: limit - length) else { return nil }
                length += itemLength
            }
        }
        return length <= limit ? length : nil
    }
}
