import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaCore

/// `DataProviderFactory.readDocument(json:…)`, the typed fast path of a PUT, against the general path it stands in
/// for: the body parsed by `JSONReader`, then validated by `makeDocument(from:…)`.
@Suite struct TypedWriteBodyTests {
    static let factory = DataProviderFactory()

    /// The general path's document, or `nil` where it refuses the body (a 400 or a 422 for the service).
    static func general(_ body: [UInt8]) -> ListDocument? {
        guard let json = try? JSONReader(maximumDepth: 64).read(body) else { return nil }
        return try? factory.makeDocument(from: json, listID: "list", revision: 1)
    }

    static func typed(_ body: [UInt8]) -> ListDocument? {
        factory.readDocument(json: body, listID: "list", revision: 1, maximumDepth: 64)
    }

    @Test func randomBodiesReadAsTheGeneralPathReadsThem() {
        var accepted = 0
        var refusedByBoth = 0
        var declinedValid = 0
        for seed in 0..<2_000 {
            var bodies = RandomWriteBodies(seed: UInt64(seed))
            let (body, plain) = bodies.body()
            let typed = Self.typed(body)
            let general = Self.general(body)
            let text = String(decoding: body, as: UTF8.self)
            if let typed {
                accepted += 1
                #expect(typed == general, "seed \(seed): \(text)")
            } else if general == nil {
                refusedByBoth += 1
            } else {
                declinedValid += 1
                // Only bodies the fast path was never meant for may need the general path to be read.
                #expect(!plain, "seed \(seed): \(text)")
            }
        }
        // Every outcome is exercised.
        #expect(accepted > 600)
        #expect(refusedByBoth > 300)
        #expect(declinedValid > 50)
    }

    @Test(arguments: [
        #"{"title":"Fruits","items":[{"id":"a","model":{"name":"Apple"}},{"id":"b","type":"T","cell":null}]}"#,
        #"{"id":"list","kind":"array","revision":9,"sections":[{"id":"all","title":"F","indexTitle":"*","items":[]}]}"#,
        #"{"cells":{"T":"TCell"},"sections":[{"id":"s","items":[{"id":"a","type":"T"},{"id":"b","type":"T","cell":"C"}]},{"id":"z"}]}"#,
        " \n{ \"items\" : [ { \"id\" : \"a\" , \"model\" : [ 1 , 2.5e3 , true , null , \"x\\n\" ] } ] }\t",
    ])
    func plainBodiesTakeTheFastPath(text: String) throws {
        let body = Array(text.utf8)
        let typed = try #require(Self.typed(body))
        #expect(typed == Self.general(body))
    }

    @Test(arguments: [
        // Valid, but not read here: escaped names, a registry after the items, a tiny depth bound below.
        #"{"items":[{"\u0069d":"a"}]}"#,
        #"{"items":[{"id":"a","type":"T"}],"cells":{"T":"C"}}"#,
        // Invalid: each is worded by the general path.
        #"{"items":[{"id":"a"},{"id":"a"}]}"#,
        #"{"items":[{"id":"a","id":"b"}]}"#,
        #"{"items":[{"id":""}]}"#,
        #"{"items":[{"id":"a","extra":1}]}"#,
        #"{"items":[{"model":1}]}"#,
        #"{"items":[],"sections":[]}"#,
        #"{"kind":"sections","title":"T","sections":[]}"#,
        #"{"kind":"array","sections":[]}"#,
        #"{"id":"other","items":[]}"#,
        #"{"cells":{"T":"C"},"items":[{"id":"a","type":"U"}]}"#,
        #"{"title":7,"items":[]}"#,
        #"{"items":[]} x"#,
        #"{"items":[{"id":"a"},]}"#,
        "{}",
        "[]",
    ])
    func otherBodiesAreLeftToTheGeneralPath(text: String) {
        #expect(Self.typed(Array(text.utf8)) == nil)
    }

    @Test func depthBoundsAreTheGeneralPathsOwn() {
        // A model as deep as the document limit allows is read; one level deeper is refused by both paths.
        func body(modelDepth: Int) -> [UInt8] {
            let model = String(repeating: "[", count: modelDepth) + String(repeating: "]", count: modelDepth)
            return Array(#"{"items":[{"id":"a","model":\#(model)}]}"#.utf8)
        }
        let limit = DocumentLimits().maximumDepth - 5
        #expect(Self.typed(body(modelDepth: limit)) != nil)
        #expect(Self.typed(body(modelDepth: limit)) == Self.general(body(modelDepth: limit)))
        #expect(Self.typed(body(modelDepth: limit + 1)) == nil)
        #expect(Self.general(body(modelDepth: limit + 1)) == nil)
        // A reader bound below the structure's own depth leaves every body to the general path.
        #expect(Self.factory.readDocument(json: body(modelDepth: 0), listID: "list", revision: 1, maximumDepth: 4) == nil)
    }

    @Test func limitsNoListCanMeetAreLeftToTheGeneralPath() {
        // A document limit below the structure's own depth, or negative counts: the general path refuses even an
        // empty list, so the fast path must not take it.
        for change in [{ (limits: inout DocumentLimits) in limits.maximumDepth = 4 }, { $0.maximumItems = -1 }, { $0.maximumSections = -1 }] {
            var limits = DocumentLimits()
            change(&limits)
            let factory = DataProviderFactory(limits: limits)
            for text in [#"{"items":[{"id":"a"}]}"#, #"{"items":[]}"#, #"{"sections":[]}"#] {
                let general = try? factory.makeDocument(from: try JSONReader().read(text), listID: "list", revision: 1)
                let typed = factory.readDocument(json: Array(text.utf8), listID: "list", revision: 1, maximumDepth: 64)
                #expect(typed == nil || typed == general, "\(limits) \(text)")
            }
        }
    }

    @Test func largeObjectsWithDuplicateKeysAreRefusedInLinearTime() {
        // 20,000 distinct keys then a repeat: a set of keys finds it (a linear search per key would take seconds).
        let members = (0..<20_000).map { "\"k\($0)\":0" }.joined(separator: ",")
        let repeated = Array(#"{"items":[{"id":"a","model":{\#(members),"k7":1}}]}"#.utf8)
        #expect(Self.typed(repeated) == nil)
        #expect(throws: JSONReadError.self) { try JSONReader().read(repeated) }
        let distinct = Array(#"{"items":[{"id":"a","model":{\#(members)}}]}"#.utf8)
        #expect(Self.typed(distinct)?.sections[0].items[0].model.objectValue?.count == 20_000)
    }
}

/// Random write bodies in every form docs/api.md allows, some broken on purpose.
struct RandomWriteBodies {
    private var random: RandomDocuments

    init(seed: UInt64) {
        random = RandomDocuments(seed: seed)
    }

    private mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random.generator) < probability
    }

    private mutating func shuffled(_ members: [(String, JSONValue)]) -> JSONValue {
        var object = JSONObject()
        for (key, value) in members.shuffled(using: &random.generator) { object[key] = value }
        return .object(object)
    }

    private mutating func item(types: [String]) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(random.freshID("i")))]
        if chance(0.5) { members.append(("type", .string(types.randomElement(using: &random.generator)!))) }
        if chance(0.2) { members.append(("cell", chance(0.5) ? .null : .string("Cell"))) }
        if chance(0.8) { members.append(("model", random.model())) }
        return shuffled(members)
    }

    private mutating func items(types: [String]) -> JSONValue {
        .array((0..<Int.random(in: 0...5, using: &random.generator)).map { _ in item(types: types) })
    }

    private mutating func section(types: [String]) -> JSONValue {
        var members: [(String, JSONValue)] = [("id", .string(random.freshID("s")))]
        if chance(0.5) { members.append(("title", .string(random.freshID("T")))) }
        if chance(0.3) { members.append(("indexTitle", chance(0.5) ? .null : .string("X"))) }
        if chance(0.8) { members.append(("items", items(types: types))) }
        return shuffled(members)
    }

    /// A body, and whether it is plain: unbroken, with its registry (if any) first, so the fast path must read it.
    mutating func body() -> (body: [UInt8], plain: Bool) {
        let types = ["Text", "Photo"]
        let cells: JSONValue? = chance(0.3) ? ["Text": "TextCell", "Photo": "PhotoCell"] : nil
        var members: [(String, JSONValue)] = []
        switch Int.random(in: 0..<3, using: &random.generator) {
        case 0:
            members.append(("items", items(types: types)))
            if chance(0.5) { members.append(("title", chance(0.8) ? .string(random.freshID("T")) : .null)) }
            if chance(0.5) { members.append(("kind", "array")) }
        case 1:
            members.append(("sections", [section(types: types)]))
            members.append(("kind", "array"))
        default:
            members.append(("sections", .array((0..<Int.random(in: 0...3, using: &random.generator)).map { _ in section(types: types) })))
            if chance(0.5) { members.append(("kind", "sections")) }
        }
        if chance(0.3) { members.append(("id", "list")) }
        if chance(0.3) { members.append(("revision", .number(JSONNumber(Int.random(in: 0...9, using: &random.generator))))) }
        var document = shuffled(members)
        var plain = true
        if let cells {
            // The registry first (the fast path's case), or anywhere.
            guard case .object(var object) = document else { fatalError() }
            var reordered = JSONObject()
            let first = chance(0.7)
            if first { reordered["cells"] = cells }
            for (key, value) in object.entries { reordered[key] = value }
            if !first { reordered["cells"] = cells; plain = false }
            object = reordered
            document = .object(object)
        }
        if chance(0.5) {
            plain = false
            for _ in 0..<Int.random(in: 1...2, using: &random.generator) { document = mutated(document) }
        }
        var text = JSONWriter.string(of: document)
        if chance(0.2) { text = text.replacingAll(",", with: " ,\n ").replacingAll(":", with: ": ") }
        if chance(0.1), text.contains("\"id\":") {
            text = text.replacingFirst("\"id\":", with: "\"\\u0069d\":")
            plain = false
        }
        return (Array(text.utf8), plain)
    }

    /// One random change somewhere in the tree, most of which break a rule.
    private mutating func mutated(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(var object) where object.count > 0 && chance(0.6):
            let keys = object.keys
            let key = keys.randomElement(using: &random.generator)!
            if chance(0.5), let child = object[key] {
                object[key] = mutated(child)
                return .object(object)
            }
            switch Int.random(in: 0..<7, using: &random.generator) {
            case 0: object[key] = nil
            case 1: object[key] = 7
            case 2: object[key] = .null
            case 3: object["extra"] = true
            case 4: object[key] = .string("")
            case 5: object[key] = .string(String(repeating: "x", count: 300))
            default: object[key] = .string("i1")
            }
            return .object(object)
        case .array(var elements) where !elements.isEmpty:
            let index = Int.random(in: elements.indices, using: &random.generator)
            if chance(0.3) {
                elements.append(elements[index])
            } else {
                elements[index] = mutated(elements[index])
            }
            return .array(elements)
        default:
            return chance(0.5) ? .array([value]) : value
        }
    }
}

private extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }

    func replacingFirst(_ target: String, with replacement: String) -> String {
        let bytes = Array(utf8), pattern = Array(target.utf8)
        guard bytes.count >= pattern.count else { return self }
        for start in 0...(bytes.count - pattern.count) where Array(bytes[start..<start + pattern.count]) == pattern {
            return String(decoding: bytes[..<start], as: UTF8.self) + replacement
                + String(decoding: bytes[(start + pattern.count)...], as: UTF8.self)
        }
        return self
    }
}
