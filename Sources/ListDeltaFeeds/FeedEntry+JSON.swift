import Foundation
import ListDeltaCore

extension FeedEntry {
    /// The entry as a list item: `{"id","type":"FeedEntry","model":{…}}`, every model member present (`null` when
    /// absent), times as RFC 3339 UTC.
    func itemJSON(id: String) -> JSONValue {
        var model = JSONObject()
        model["title"] = Self.json(title)
        model["link"] = Self.json(link)
        model["summary"] = Self.json(summary)
        model["content"] = Self.json(content)
        model["published"] = Self.json(published.map(FeedDate.rfc3339))
        model["updated"] = Self.json(updated.map(FeedDate.rfc3339))
        model["authors"] = authors.isEmpty ? .null : .array(authors.map(JSONValue.string))
        model["categories"] = categories.isEmpty ? .null : .array(categories.map(JSONValue.string))
        if let enclosure {
            var object = JSONObject()
            object["url"] = .string(enclosure.url)
            object["type"] = Self.json(enclosure.type)
            object["length"] = enclosure.length.map { .number(JSONNumber($0)) } ?? .null
            model["enclosure"] = .object(object)
        } else {
            model["enclosure"] = .null
        }
        var item = JSONObject()
        item["id"] = .string(id)
        item["type"] = "FeedEntry"
        item["model"] = .object(model)
        return .object(item)
    }

    private static func json(_ text: String?) -> JSONValue {
        text.map(JSONValue.string) ?? .null
    }

    /// The date the entry is filed under: published, else updated.
    var filingDate: Date? { published ?? updated }
}
