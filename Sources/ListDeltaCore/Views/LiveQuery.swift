/// A live query (API.md, "Live queries"): a view definition without `of`, read from a URL's `q`, whose result over
/// a list at a revision is what a view with that definition would hold.
///
/// Two queries are equal when their canonical forms are: however a client wrote `q` (members in any order, defaults
/// spelled out, `"order": "asc"`, spaces), ``canonicalJSON`` is one text, so every follower of one query shares its
/// URLs, its ETags and the work of keeping it.
public struct LiveQuery: Sendable, Hashable {
    /// The most bytes of `q` once percent-decoded (400 above).
    public static let maximumBytes = 4_096

    /// The query as a definition over the list `base`.
    public let definition: ViewDefinition
    /// The canonical JSON text (API.md: "Canonical `q`"), which the document's `"query"` member carries.
    public let canonicalJSON: String

    /// Reads `q` (or another parameter holding a query, such as `fromQuery`), already percent-decoded.
    ///
    /// Checks, in this order: at most ``maximumBytes`` bytes; JSON; an object; no unknown member (`of` included);
    /// then `where`, `sort`, `offset`, `limit`, `sections` as a view definition's. Every pointer starts with
    /// `/` and the parameter's name (`/q`).
    /// - Parameters:
    ///   - base: the list the query is over (the URL's list id).
    ///   - limits: `limit` defaults to, and neither it nor `offset` may exceed, `limits.maximumItems`.
    ///   - definitionLimits: the bounds on conditions, sort keys, `in` values, value sizes and the smallest `limit`.
    ///   - parameter: the name of the URL parameter it came from, the first token of every pointer.
    /// - Throws: ``ViewDefinitionError`` whose `pointer` is `/q` or names the member inside it (`/q/where/0/op`).
    /// - Complexity: O(*n*) in the length of `text`.
    public init(
        text: String, base: String, limits: DocumentLimits, definitionLimits: DefinitionLimits = DefinitionLimits(),
        parameter: String = "q"
    ) throws(ViewDefinitionError) {
        let root = JSONPointer(tokens: [parameter])
        guard text.utf8.count <= Self.maximumBytes else {
            throw ViewDefinitionError("\(parameter) may have at most \(Self.maximumBytes) bytes once decoded", at: root)
        }
        let json: JSONValue
        do {
            json = try JSONReader(maximumDepth: 16).read(text)
        } catch {
            throw ViewDefinitionError("\(parameter) must be JSON: \(error)", at: root)
        }
        guard case .object(let body) = json else {
            throw ViewDefinitionError("\(parameter) must be a JSON object (a view definition without of)", at: root)
        }
        if let unknown = body.keys.first(where: { !ViewDefinition.members.contains($0) || $0 == "of" }) {
            throw ViewDefinitionError(
                "unknown member \"\(unknown)\" (a query has where, sort, offset, limit, sections)", at: root.appending(unknown))
        }
        let definition = try ViewDefinition.readQuery(body, at: root, base: base, limits: limits, definitionLimits: definitionLimits)
        self.init(definition: definition, defaultLimit: limits.maximumItems)
    }

    /// The query of `definition` (its `base` is the list the query is over); `defaultLimit` is the configured items
    /// per list, the `limit` that the canonical form leaves out.
    /// - Complexity: O(*n*) in the size of the definition.
    public init(definition: ViewDefinition, defaultLimit: Int) {
        self.definition = definition
        canonicalJSON = JSONWriter.string(of: Self.canonicalValue(of: definition, defaultLimit: defaultLimit))
    }

    /// Queries are equal when they are over one list and have one canonical form.
    public static func == (lhs: LiveQuery, rhs: LiveQuery) -> Bool {
        lhs.definition.base == rhs.definition.base && lhs.canonicalJSON == rhs.canonicalJSON
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(definition.base)
        hasher.combine(canonicalJSON)
    }

    /// Whether the query is the whole list (its canonical form is `{}`): its answers are those without `q`.
    public var isWholeList: Bool { canonicalJSON == "{}" }

    /// ``canonicalJSON`` percent-encoded as JavaScript's `encodeURIComponent` does: the text of `q=` in every
    /// `next` link.
    /// - Complexity: O(*n*) in the length of the canonical text.
    public var percentEncoded: String { PercentEncoding.uriComponent(canonicalJSON) }

    /// A short tag of the canonical form, the same on every instance and in every run (64-bit FNV-1a, in hex), for
    /// ETags that differ between queries.
    /// - Complexity: O(*n*) in the length of the canonical text.
    public var tag: String { FNV1a.hex(FNV1a.hash(canonicalJSON.utf8)) }

    /// The query's result over `document` (`nil`: the list is missing or deleted, which holds no items): the view
    /// of that document with the list's id and `revision`.
    /// - Complexity: O(*n* log *n*) for *n* items (``ViewDefinition/evaluate(over:viewID:revision:limits:)``).
    public func result(over document: ListDocument?, revision: Int, limits: DocumentLimits) -> ListDocument {
        definition.evaluate(over: document, viewID: definition.base, revision: revision, limits: limits)
    }

    /// The canonical JSON value: members in the order `where`, `sort`, `offset`, `limit`, `sections`, each left out
    /// when it is its default; conditions as `path`, `op`, `value`; sort keys as `path` then `order`, left out when
    /// `asc`; values as they were read (object members in the order given).
    private static func canonicalValue(of definition: ViewDefinition, defaultLimit: Int) -> JSONValue {
        var object = JSONObject()
        if !definition.conditions.isEmpty { object.appendUnchecked("where", .array(definition.conditions.map(\.jsonValue))) }
        if !definition.sort.isEmpty {
            object.appendUnchecked("sort", .array(definition.sort.map { $0.jsonValue(withDefaultOrder: false) }))
        }
        if definition.offset != 0 { object.appendUnchecked("offset", .number(JSONNumber(definition.offset))) }
        if definition.limit != defaultLimit { object.appendUnchecked("limit", .number(JSONNumber(definition.limit))) }
        if definition.sections != .keep { object.appendUnchecked("sections", definition.sections.jsonValue) }
        return .object(object)
    }
}
