/// One item a view shows, with the id of the base section that holds it.
struct ViewShownItem {
    var item: ListItem
    var section: String
    /// The item's `by` text when already known (``ViewDefinition/groupText(_:)``), else `nil`.
    var group: String? = nil
}

extension ViewDefinition {
    /// The view's document from its items, already filtered, sorted and limited: grouped as ``sections`` says,
    /// with the base's `cells`, the kind of ``kind(ofBase:)``, id `viewID` and `revision`.
    /// - Complexity: O(*v* + *s*) for *v* items and *s* base sections (plus each `by` text's length).
    func document(
        grouping items: [ViewShownItem], base: ListDocument?, viewID: String, revision: Int, limits: DocumentLimits
    ) -> ListDocument {
        var document = ListDocument(id: viewID, kind: kind(ofBase: base?.kind), revision: revision, cells: base?.cells)
        switch sections {
        case .keep:
            guard let base else { return document }
            var order: [String: Int] = [:]
            order.reserveCapacity(base.sections.count)
            for (index, section) in base.sections.enumerated() { order[section.id] = index }
            var buckets = [[ListItem]](repeating: [], count: base.sections.count)
            // Neighbours mostly share a section (always without sort keys): look its index up once per run.
            var lastSection: String?
            var lastIndex: Int?
            for shown in items {
                if shown.section != lastSection {
                    lastSection = shown.section
                    lastIndex = order[shown.section]
                }
                guard let index = lastIndex else { continue }
                buckets[index].append(shown.item)
            }
            document.sections = buckets.indices.compactMap { index in
                buckets[index].isEmpty ? nil : ListSection(header: base.sections[index].header, items: buckets[index])
            }
        case .none:
            document.sections = [ListSection(id: "main", items: items.map(\.item))]
        case .by(let path):
            var positions: [String: Int] = [:]
            var sections: [ListSection] = []
            // Sorted items often come in runs of one text: look its section up once per run.
            var lastText: String?
            var lastPosition: Int?
            for shown in items {
                let text = shown.group ?? Self.groupText(ViewPath.resolve(path, in: shown.item, section: shown.section))
                if text == lastText, let position = lastPosition {
                    sections[position].items.append(shown.item)
                    continue
                }
                lastText = text
                let id = Self.sectionID(for: text, maximumBytes: limits.maximumIDBytes)
                lastPosition = positions[id]
                if let position = lastPosition {
                    sections[position].items.append(shown.item)
                } else if sections.count < limits.maximumSections {
                    positions[id] = sections.count
                    lastPosition = sections.count
                    sections.append(ListSection(id: id, title: text, items: [shown.item]))
                }
            }
            document.sections = sections
        }
        return document
    }

    /// The text a `by` grouping gives a value: a non-empty string as it is; anything else its compact JSON text
    /// as `JSONWriter` writes it (`null` for a missing value or null, `""` for the empty string, and a number's
    /// literal as written, so `12` and `12.0` are different texts while `12` and `"12"` are one).
    /// - Complexity: O(*n*) in the size of the value.
    public static func groupText(_ value: JSONValue?) -> String {
        switch value {
        case nil: return "null"
        case .string(let text)? where !text.isEmpty: return text
        case let value?: return JSONWriter.string(of: value)
        }
    }

    /// A section id for a `by` text: the text, cut to at most `maximumBytes` UTF-8 bytes at a character boundary
    /// (at a Unicode scalar boundary when the first character alone is longer; `-` when even the first scalar is).
    /// - Complexity: O(*n*) in the length of `text`.
    public static func sectionID(for text: String, maximumBytes: Int) -> String {
        if text.utf8.count <= maximumBytes { return text }
        var id = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > maximumBytes { break }
            id.append(character)
            bytes += size
        }
        if !id.isEmpty { return id }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            if bytes + size > maximumBytes { break }
            scalars.append(scalar)
            bytes += size
        }
        return scalars.isEmpty ? "-" : String(scalars)
    }
}
