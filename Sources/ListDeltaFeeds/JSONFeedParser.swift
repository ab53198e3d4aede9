import ListDeltaCore

/// Reads JSON Feed 1.0 and 1.1 (https://jsonfeed.org) with ListDeltaCore's bounded `JSONReader`.
public struct JSONFeedParser: FeedParsing {
    /// The bounds applied (`maximumDepth` bounds the JSON nesting).
    public var limits: FeedLimits

    /// A parser applying `limits`.
    public init(limits: FeedLimits = .init()) {
        self.limits = limits
    }

    /// Parses JSON Feed bytes; `charset` is ignored (JSON is UTF-8).
    /// - Throws: `.malformed` for JSON that does not read, `.notAFeed` for JSON without a JSON Feed `version`.
    /// - Complexity: O(*n*) in the bytes.
    public func parse(_ bytes: [UInt8], baseURL: String?, charset: String?) throws(FeedParseError) -> Feed {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let value: JSONValue
        do {
            value = try JSONReader(maximumDepth: limits.maximumDepth).read(body)
        } catch {
            throw FeedParseError(.malformed, "The JSON Feed is not valid JSON: \(error).")
        }
        guard let object = value.objectValue else {
            throw FeedParseError(.notAFeed, "The JSON is \(value.typeName == "array" ? "an" : "a") \(value.typeName), not a JSON Feed object.")
        }
        guard let version = object["version"]?.stringValue, version.hasPrefix("https://jsonfeed.org/version/") else {
            throw FeedParseError(
                .notAFeed, "The JSON has no JSON Feed \"version\" (https://jsonfeed.org/version/1.1): it is not a feed.")
        }
        var feed = Feed(format: .jsonFeed)
        feed.title = object["title"]?.stringValue.flatMap(FeedText.trimmed)
        feed.subtitle = object["description"]?.stringValue.flatMap(FeedText.trimmed)
        feed.link = object["home_page_url"]?.stringValue.flatMap { WebLink.resolve($0, against: baseURL) }
        let feedAuthors = Self.authors(in: object)
        let items = (object["items"]?.arrayValue ?? []).compactMap(\.objectValue)
        let kept = min(items.count, limits.maximumEntries)
        feed.droppedEntries = items.count - kept
        feed.entries.reserveCapacity(kept)
        for item in items.prefix(kept) {
            var entry = entry(item, baseURL: baseURL)
            if entry.authors.isEmpty { entry.authors = feedAuthors }
            feed.entries.append(entry)
        }
        return feed
    }

    private func entry(_ item: JSONObject, baseURL: String?) -> FeedEntry {
        var entry = FeedEntry()
        switch item["id"] {
        case .string(let id)?: entry.id = FeedText.trimmed(id)
        case .number(let number)?: entry.id = number.literal
        default: break
        }
        // The item's own page, else the page it is about; only an http(s) one (see `WebLink`).
        entry.link = item["url"]?.stringValue.flatMap { WebLink.resolve($0, against: baseURL) }
            ?? item["external_url"]?.stringValue.flatMap { WebLink.resolve($0, against: baseURL) }
        entry.title = item["title"]?.stringValue.flatMap(FeedText.trimmed)
        entry.summary = FeedText.bounded(item["summary"]?.stringValue, limits.maximumTextBytes)
        entry.content = FeedText.bounded(
            item["content_html"]?.stringValue ?? item["content_text"]?.stringValue, limits.maximumTextBytes)
        entry.published = item["date_published"]?.stringValue.flatMap(FeedDate.parse)
        entry.updated = item["date_modified"]?.stringValue.flatMap(FeedDate.parse)
        entry.authors = Self.authors(in: item)
        entry.categories = (item["tags"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(FeedText.trimmed) }
        if let attachment = item["attachments"]?.arrayValue?.first?.objectValue,
            let url = attachment["url"]?.stringValue.flatMap({ WebLink.resolve($0, against: baseURL) })
        {
            var length: Int?
            if case .number(let size)? = attachment["size_in_bytes"], let bytes = size.intValue, bytes >= 0 { length = bytes }
            entry.enclosure = FeedEnclosure(
                url: url, type: attachment["mime_type"]?.stringValue.flatMap(FeedText.trimmed), length: length)
        }
        return entry
    }

    /// `authors` (1.1) or `author` (1.0): each one's name, else its URL.
    private static func authors(in object: JSONObject) -> [String] {
        let list = object["authors"]?.arrayValue ?? object["author"].map { [$0] } ?? []
        return list.compactMap { author in
            guard let author = author.objectValue else { return nil }
            return author["name"]?.stringValue.flatMap(FeedText.trimmed) ?? author["url"]?.stringValue.flatMap(FeedText.trimmed)
        }
    }
}
