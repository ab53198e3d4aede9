import ListDeltaCore

/// Reads the input as a feed (as fetched, and as if the server had announced windows-1252); whatever parses must
/// respect the limits and map, under every grouping, to a valid list document, the same each time, whose JSON
/// reads back equal.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = FeedLimits(maximumEntries: 200, maximumTextBytes: 2_048, maximumDepth: 64)
    let parser = FeedParser(limits: limits)
    for charset in [nil, "windows-1252"] {
        guard let feed = try? parser.parse(bytes, baseURL: "https://fuzz.example/feeds/feed.xml", charset: charset) else {
            continue
        }
        precondition(feed.entries.count <= limits.maximumEntries, "more entries than the limit")
        for entry in feed.entries {
            precondition((entry.summary?.utf8.count ?? 0) <= limits.maximumTextBytes, "a summary over the limit")
            precondition((entry.content?.utf8.count ?? 0) <= limits.maximumTextBytes, "a content over the limit")
            for date in [entry.published, entry.updated].compactMap({ $0 }) {
                let text = FeedDate.rfc3339(date)
                precondition(FeedDate.parse(text).map(FeedDate.rfc3339) == text, "a formatted date does not read back")
            }
        }
        for grouping in SectionGrouping.allCases {
            let mapping = FeedListMapping(grouping: grouping, maximumItems: 100)
            let document = mapping.document(from: feed)
            precondition(document.itemCount <= 100, "more items than the mapping allows")
            precondition(mapping.document(from: feed) == document, "the mapping is not deterministic")
            precondition(
                (try? DataProviderFactory().makeDocument(from: document.json, listID: "fuzz", revision: 1)) != nil,
                "the mapping is not a valid list document")
            let written = JSONWriter.bytes(of: document.json)
            precondition((try? JSONReader(maximumDepth: 64).read(written)) == document.json, "the JSON does not read back")
        }
    }
    return 0
}
