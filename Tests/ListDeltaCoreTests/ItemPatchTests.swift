import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaCore

/// `JSONPatch.applyToItems(of:limits:)` against the general path it stands in for: the document as JSON,
/// patched, then read back and validated by the factory.
@Suite struct ItemPatchTests {
    static let limits = DocumentLimits()

    /// The general path's document, or `nil` where it fails (a 409 or a 422 for the service).
    static func general(_ patch: JSONPatch, _ document: ListDocument) -> ListDocument? {
        guard let patched = try? patch.apply(to: document.jsonValue) else { return nil }
        return try? DataProviderFactory(limits: limits).makeDocument(from: patched, listID: document.id, revision: document.revision)
    }

    @Test func randomPatchesOfItemsGiveWhatTheGeneralPathGives() {
        var typedResults = 0
        var generalOnly = 0
        for seed in 0..<1_500 {
            var random = RandomDocuments(seed: UInt64(seed))
            var document = random.document(sections: 1...3, items: 0...6)
            if seed % 3 == 0 { document.cells = ["Text": "TextCell"] }
            var patches = ItemPatchGenerator(random: random, document: document)
            let patch = patches.patch()
            let typed = patch.applyToItems(of: document, limits: Self.limits)
            let general = Self.general(patch, document)
            if let typed {
                typedResults += 1
                #expect(typed == general, "seed \(seed): \(patch.jsonValue)")
            } else if general != nil {
                generalOnly += 1
                // Only patches that reach past items may need the general path to succeed.
                #expect(patches.reachedPastItems, "seed \(seed): \(patch.jsonValue)")
            }
        }
        // Both outcomes are exercised.
        #expect(typedResults > 250)
        #expect(generalOnly > 25)
    }

    @Test func unchangedItemsStayShared() throws {
        let document = ListDocument(id: "l", kind: .array, revision: 3, sections: [
            ListSection(id: "main", items: (0..<5).map { ListItem(id: "i\($0)", model: ["v": .number(JSONNumber($0))]) }),
        ])
        let patch = try JSONPatch(json: try JSONReader().read(#"""
            [{"op":"replace","path":"/sections/0/items/1/model/v","value":10},
             {"op":"move","from":"/sections/0/items/4","path":"/sections/0/items/0"},
             {"op":"add","path":"/sections/0/items/-","value":{"id":"new","model":null}},
             {"op":"remove","path":"/sections/0/items/3"}]
            """#))
        let typed = try #require(patch.applyToItems(of: document, limits: Self.limits))
        #expect(typed == Self.general(patch, document))
        #expect(typed.sections[0].items.map(\.id) == ["i4", "i0", "i1", "i3", "new"])
        #expect(typed.sections[0].items[2].model == ["v": 10])
        #expect(typed.revision == 3)
    }

    @Test(arguments: [
        // Elsewhere than items: the general path's business.
        #"[{"op":"replace","path":"/sections/0/title","value":"T"}]"#,
        #"[{"op":"add","path":"/cells","value":{"Text":"C"}}]"#,
        #"[{"op":"add","path":"/sections/0/items","value":[]}]"#,
        // Failures, worded by the general path.
        #"[{"op":"remove","path":"/sections/0/items/9"}]"#,
        #"[{"op":"test","path":"/sections/0/items/0/model/v","value":2}]"#,
        #"[{"op":"remove","path":"/sections/0/items/0/model/nope"}]"#,
        // Results that break a rule: a duplicate id, an item that is not one, an unknown member.
        #"[{"op":"copy","from":"/sections/0/items/0","path":"/sections/0/items/-"}]"#,
        #"[{"op":"replace","path":"/sections/0/items/1/id","value":"i0"}]"#,
        #"[{"op":"add","path":"/sections/0/items/0","value":7}]"#,
        #"[{"op":"add","path":"/sections/0/items/0/extra","value":7}]"#,
    ])
    func theGeneralPathTakesOver(patch text: String) throws {
        let document = ListDocument(id: "l", kind: .array, revision: 1, sections: [
            ListSection(id: "main", items: [ListItem(id: "i0", model: ["v": 1]), ListItem(id: "i1")]),
        ])
        let patch = try JSONPatch(json: try JSONReader().read(text))
        #expect(patch.applyToItems(of: document, limits: Self.limits) == nil)
    }
}

/// Random JSON Patches of a document's items, mostly valid, some failing, some breaking a rule, some reaching past
/// items (section titles, the registry).
struct ItemPatchGenerator {
    var random: RandomDocuments
    let document: ListDocument
    /// The item ids of the document, to draw duplicates from.
    private let ids: [String]
    /// Whether an operation addresses something other than items.
    private(set) var reachedPastItems = false

    init(random: RandomDocuments, document: ListDocument) {
        self.random = random
        self.document = document
        self.ids = document.sections.flatMap { $0.items.map(\.id) }
    }

    mutating func patch() -> JSONPatch {
        JSONPatch((0..<Int.random(in: 1...4, using: &random.generator)).map { _ in operation() })
    }

    private mutating func roll(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random.generator) }

    /// An item path of a section that exists (usually), at an index that exists (usually) or the end.
    private mutating func itemPath(end: Bool = false) -> String {
        let section = roll(0..<25) == 0 ? document.sections.count : roll(0..<document.sections.count)
        let count = section < document.sections.count ? document.sections[section].items.count : 0
        let index: String
        switch roll(0..<25) {
        case 0 where end, 1 where end: index = "-"
        case 2: index = String(count + 1)
        default: index = String(roll(0..<(count + 1)))
        }
        return "/sections/\(section)/items/\(index)"
    }

    private mutating func item() -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(roll(0..<12) == 0 && !ids.isEmpty ? ids[roll(0..<ids.count)] : random.freshID("n"))]
        if roll(0..<2) == 0 { object["type"] = roll(0..<10) == 0 ? "Unknown" : "Text" }
        if roll(0..<3) == 0 { object["cell"] = "GivenCell" }
        if roll(0..<4) != 0 { object["model"] = random.model() }
        if roll(0..<30) == 0 { object["extra"] = 1 }
        var json = JSONObject()
        for (key, value) in object.sorted(by: { $0.key < $1.key }) { json[key] = value }
        return roll(0..<40) == 0 ? JSONValue(integerLiteral: 5) : .object(json)
    }

    private mutating func operation() -> JSONPatchOperation {
        let pointer = { (text: String) in try! JSONPointer(parsing: text) }
        switch roll(0..<14) {
        case 0, 1: return .add(path: pointer(itemPath(end: true)), value: item())
        case 2: return .remove(path: pointer(itemPath()))
        case 3: return .replace(path: pointer(itemPath()), value: item())
        case 4, 5: return .move(from: pointer(itemPath()), path: pointer(itemPath(end: true)))
        case 6: return .copy(from: pointer(itemPath()), path: pointer(itemPath(end: true)))
        case 7: return .replace(path: pointer(itemPath() + "/model"), value: random.model())
        case 8: return .add(path: pointer(itemPath() + "/model/text"), value: .string(random.freshID("t")))
        case 9: return .remove(path: pointer(itemPath() + (roll(0..<2) == 0 ? "/model" : "/model/text")))
        case 10:
            let id: JSONValue = roll(0..<8) == 0 && !ids.isEmpty ? .string(ids[roll(0..<ids.count)]) : .string(random.freshID("r"))
            return .replace(path: pointer(itemPath() + (roll(0..<4) == 0 ? "/type" : "/id")), value: id)
        case 11:
            let path = itemPath()
            let actual = (try? JSONPointer(parsing: path)).flatMap { document.jsonValue.value(at: $0) }
            return .test(path: pointer(path), value: roll(0..<6) == 0 ? .null : actual ?? .null)
        case 12: return .move(from: pointer(itemPath() + "/model"), path: pointer(itemPath() + "/model"))
        default:
            reachedPastItems = true
            return roll(0..<2) == 0
                ? .replace(path: pointer("/sections/0/title"), value: .string(random.freshID("T")))
                : .add(path: pointer("/sections/0/indexTitle"), value: "X")
        }
    }
}
