import Foundation
import ListDeltaCore

/// Maps a `Feed` to a list document: stable item ids, duplicates dropped, a bounded number of items, grouped
/// into sections or not. Deterministic: the same feed always maps to equal JSON.
public struct FeedListMapping: Sendable {
    /// The most UTF-8 bytes an id may have (the list API's rule); longer ids are replaced by their hash.
    static let maximumIDBytes = 256

    /// How entries are grouped.
    public var grouping: SectionGrouping
    /// The most items kept (the first ones in feed order, after duplicates are dropped).
    public var maximumItems: Int

    /// A mapping with the given grouping that keeps at most `maximumItems` items (negative counts as 0).
    public init(grouping: SectionGrouping = .none, maximumItems: Int = 1_000) {
        self.grouping = grouping
        self.maximumItems = max(0, maximumItems)
    }

    /// The list document for `feed`.
    ///
    /// An item's id is the entry's id, else its link, else a hash of its title and publication date; ids over 256
    /// UTF-8 bytes become their hash. The first entry with an id wins; later ones count as `duplicates`.
    /// - Complexity: O(*n* log *n*) for *n* entries (sorting days), O(*n*) otherwise; linear in the text hashed.
    public func document(from feed: Feed) -> FeedDocument {
        var seen = Set<String>()
        var kept: [(id: String, entry: FeedEntry)] = []
        var duplicates = 0
        for entry in feed.entries {
            let id = Self.itemID(for: entry)
            guard seen.insert(id).inserted else {
                duplicates += 1
                continue
            }
            if kept.count < maximumItems { kept.append((id, entry)) }
        }
        let json: JSONValue
        switch grouping {
        case .none:
            var object = JSONObject()
            object["kind"] = "array"
            object["title"] = feed.title.map(JSONValue.string) ?? .null
            object["items"] = .array(kept.map { $0.entry.itemJSON(id: $0.id) })
            json = .object(object)
        case .day: json = Self.sections(Self.byDay(kept))
        case .category: json = Self.sections(Self.byCategory(kept))
        }
        return FeedDocument(json: json, duplicates: duplicates, itemCount: kept.count)
    }

    /// A section before it is JSON.
    struct Section {
        var id: String
        var title: String
        var indexTitle: String?
        var items: [JSONValue] = []
    }

    /// `{"kind":"sections","sections":[…]}`.
    private static func sections(_ sections: [Section]) -> JSONValue {
        let values: [JSONValue] = sections.map { section in
            var object = JSONObject()
            object["id"] = .string(section.id)
            object["title"] = .string(section.title)
            object["indexTitle"] = section.indexTitle.map(JSONValue.string) ?? .null
            object["items"] = .array(section.items)
            return .object(object)
        }
        var object = JSONObject()
        object["kind"] = "sections"
        object["sections"] = .array(values)
        return .object(object)
    }

    /// One section per UTC day, newest first; undated entries last.
    private static func byDay(_ entries: [(id: String, entry: FeedEntry)]) -> [Section] {
        var days: [Int: Section] = [:]
        var undated = Section(id: "undated", title: "Undated", indexTitle: nil)
        for (id, entry) in entries {
            let item = entry.itemJSON(id: id)
            guard let date = entry.filingDate else {
                undated.items.append(item)
                continue
            }
            let day = FeedDate.utcDay(date)
            days[day.ordinal, default: Section(id: day.key, title: day.key, indexTitle: String(day.day))].items.append(item)
        }
        var result = days.keys.sorted(by: >).map { days[$0]! }
        if !undated.items.isEmpty { result.append(undated) }
        return result
    }

    /// One section per first category, in order of first appearance; uncategorized entries last, under an id no
    /// category section has.
    private static func byCategory(_ entries: [(id: String, entry: FeedEntry)]) -> [Section] {
        var order: [String] = []
        var sections: [String: Section] = [:]
        var usedIDs = Set<String>()
        var uncategorized: [JSONValue] = []
        for (id, entry) in entries {
            let item = entry.itemJSON(id: id)
            guard let category = entry.categories.first.flatMap(FeedText.trimmed) else {
                uncategorized.append(item)
                continue
            }
            if sections[category] == nil {
                let sectionID = unique(sectionID(for: category), in: &usedIDs)
                let index = category.first.map { String($0).uppercased() }
                sections[category] = Section(id: sectionID, title: category, indexTitle: index)
                order.append(category)
            }
            sections[category]!.items.append(item)
        }
        var result = order.map { sections[$0]! }
        if !uncategorized.isEmpty {
            result.append(
                Section(id: unique("uncategorized", in: &usedIDs), title: "Uncategorized", indexTitle: nil, items: uncategorized))
        }
        return result
    }

    /// `candidate`, or `candidate-1`, `candidate-2`… the first not yet used; recorded as used.
    private static func unique(_ candidate: String, in used: inout Set<String>) -> String {
        var id = candidate
        var suffix = 0
        while used.contains(id) {
            suffix += 1
            id = "\(candidate)-\(suffix)"
        }
        used.insert(id)
        return id
    }

    /// A section id for a category: the category itself, or its hash when too long.
    static func sectionID(for category: String) -> String {
        if let trimmed = FeedText.trimmed(category), trimmed.utf8.count <= maximumIDBytes { return trimmed }
        return StableHash.identifier(of: category.utf8)
    }

    /// An entry's item id: id, else link, else the hash of title and publication date; hashed when too long.
    static func itemID(for entry: FeedEntry) -> String {
        if let id = entry.id.flatMap(FeedText.trimmed) ?? entry.link.flatMap(FeedText.trimmed) {
            return id.utf8.count <= maximumIDBytes ? id : StableHash.identifier(of: id.utf8)
        }
        var bytes = Array((entry.title ?? "").utf8)
        bytes.append(0)
        if let date = entry.published { bytes += Array(FeedDate.rfc3339(date).utf8) }
        return StableHash.identifier(of: bytes)
    }
}
