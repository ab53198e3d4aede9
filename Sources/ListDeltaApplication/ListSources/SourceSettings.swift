import ListDeltaCore
import ListDeltaFeeds

/// What a client sets on a source (`PUT /v1/lists/{id}/source`): where it is, how often it is fetched, how its
/// entries become sections, and how many are kept.
struct SourceSettings: Sendable, Equatable {
    var url: String
    /// Seconds between fetches.
    var interval: Int
    var sections: SectionGrouping
    var maxItems: Int

    static let defaultInterval = 300
    static let defaultMaxItems = 1_000
    /// The longest interval: a week.
    static let maximumInterval = 7 * 86_400

    init(url: String, interval: Int = Self.defaultInterval, sections: SectionGrouping = .none, maxItems: Int = Self.defaultMaxItems) {
        self.url = url
        self.interval = interval
        self.sections = sections
        self.maxItems = maxItems
    }

    /// Reads a request body; members it does not know are ignored, and a member left out takes its default (a
    /// `null` one is refused: it is no setting).
    /// - Throws: ``ApplicationError/malformedBody(_:)`` for a body that is not an object,
    ///   ``ApplicationError/invalidMember(_:pointer:)`` naming the member that is wrong.
    init(requestBody json: JSONValue, minimumInterval: Int, maximumItems: Int) throws(ApplicationError) {
        guard case .object(let object) = json else { throw .malformedBody("the body must be a JSON object: {\"url\": ...}") }
        guard case .string(let url)? = object["url"] else {
            throw .invalidMember("url is required: the feed's http, https or file: URL", pointer: "/url")
        }
        self.init(url: url)
        // The defaults give way to the configured bounds.
        interval = try Self.integer(
            object["interval"], "interval", in: minimumInterval...Self.maximumInterval, default: max(Self.defaultInterval, minimumInterval),
            hint: "seconds between fetches")
        maxItems = try Self.integer(
            object["maxItems"], "maxItems", in: 1...maximumItems, default: min(Self.defaultMaxItems, maximumItems), hint: "items kept")
        switch object["sections"] {
        case nil:
            sections = .none
        case .string(let name)?:
            guard let grouping = SectionGrouping(rawValue: name) else {
                throw .invalidMember("sections must be none, day or category", pointer: "/sections")
            }
            sections = grouping
        default:
            throw .invalidMember("sections must be none, day or category", pointer: "/sections")
        }
    }

    private static func integer(_ value: JSONValue?, _ name: String, in range: ClosedRange<Int>, default fallback: Int, hint: String) throws(ApplicationError) -> Int {
        guard let value else { return fallback }
        guard case .number(let number) = value, let integer = number.intValue, range.contains(integer) else {
            throw .invalidMember("\(name) must be a whole number of \(hint), \(range.lowerBound) to \(range.upperBound)", pointer: "/\(name)")
        }
        return integer
    }

    /// Reads settings as stored (``jsonValue``'s form).
    init?(stored json: JSONValue) {
        guard case .object(let object) = json, case .string(let url)? = object["url"],
            case .number(let interval)? = object["interval"], let seconds = interval.intValue,
            case .string(let sections)? = object["sections"], let grouping = SectionGrouping(rawValue: sections),
            case .number(let maxItems)? = object["maxItems"], let items = maxItems.intValue
        else { return nil }
        self.init(url: url, interval: seconds, sections: grouping, maxItems: items)
    }

    /// `{"url","interval","sections","maxItems"}`.
    var jsonObject: JSONObject {
        var object = JSONObject()
        object["url"] = .string(url)
        object["interval"] = .number(JSONNumber(interval))
        object["sections"] = .string(sections.rawValue)
        object["maxItems"] = .number(JSONNumber(maxItems))
        return object
    }
}
