import ListDeltaCoreTestSupport
import Testing
@testable import ListDeltaCore

/// The core's bounds on what one request may cost: pointers built in linear time, a document's and a patch's size,
/// definitions' caps, and conditions tested in one pass.
@Suite struct BoundedCostTests {
    private let reader = JSONReader()

    // MARK: - Pointers

    @Test func pointersRoundTripThroughTheirEscapes() throws {
        for tokens in [["a/b", "~0", "~1~", "", "é/~"], ["/"], [""], ["sections", "0", "items", "-"]] {
            let pointer = JSONPointer(tokens: tokens)
            #expect(try JSONPointer(parsing: pointer.description) == pointer)
        }
        #expect(JSONPointer(tokens: ["a/b", "c~d"]).description == "/a~1b/c~0d")
        #expect(try JSONPointer(parsing: "/a\u{301}/~1\u{301}").tokens == ["a\u{301}", "/\u{301}"])
        #expect(throws: JSONPointerError.self) { try JSONPointer(parsing: "/a~2") }
        #expect(throws: JSONPointerError.self) { try JSONPointer(parsing: "/a~") }
        #expect(throws: JSONPointerError.self) { try JSONPointer(parsing: "a") }
    }

    @Test func aTokenOfAMillionSlashesEscapesAndParsesWhole() throws {
        // Quadratic escaping took seconds for 800,000 slashes; this would not finish in a test run.
        let pointer = JSONPointer(tokens: [String(repeating: "/", count: 1_000_000)])
        let text = pointer.description
        #expect(text.utf8.count == 2_000_001)
        #expect(try JSONPointer(parsing: text) == pointer)
    }

    // MARK: - Sizes

    @Test func theCountedJSONLengthIsTheWrittenOne() throws {
        var random = RandomDocuments(seed: 38)
        for round in 0..<200 {
            var document = random.document(revision: round + 1)
            if round % 3 == 0 { document.cells = ["Text": "TextCell", "q\"": "\u{01}"] }
            if round % 5 == 0, !document.sections.isEmpty {
                document.sections[0].items.append(ListItem(id: "e\u{7}\"\\", type: "T\n", cell: "c\t", model: ["x\u{1F}": [1.5, "é", nil, true]]))
            }
            let written = JSONWriter.bytes(of: document.jsonValue).count
            #expect(document.compactJSONLength(upTo: .max) == written)
            #expect(document.compactJSONLength(upTo: written) == written)
            #expect(document.compactJSONLength(upTo: written - 1) == nil)
            for item in document.sections.flatMap(\.items) {
                #expect(item.compactJSONLength(upTo: .max) == JSONWriter.bytes(of: item.jsonValue).count)
            }
        }
    }

    @Test func countingStopsOnceTheLimitIsPassed() throws {
        let huge = JSONValue.array(Array(repeating: .string(String(repeating: "x", count: 1_000)), count: 10_000))
        #expect(huge.compactJSONLength(upTo: 10_000) == nil)
        #expect(huge.compactJSONLength(upTo: .max) == 10_000 * 1_002 + 10_001)
    }

    // MARK: - Patches

    private func patch(_ text: String, maximumOperations: Int = .max) throws -> JSONPatch {
        try JSONPatch(json: reader.read(text), maximumOperations: maximumOperations)
    }

    @Test func copiesAreBoundedInAllWhileThePatchApplies() throws {
        let document = try reader.read(#"{"m": {"x": "\#(String(repeating: "y", count: 1_000))"}}"#)
        let copies = (0..<21).map { #"{"op":"copy","from":"/m","path":"/m/c\#($0)"}"# }.joined(separator: ",")
        // Each copy doubles the value: 21 of them would be 2 GB; the budget stops the one whose copies pass 64 KiB in
        // all: the seventh (1 KB, 2 KB, … 32 KB make 62 KB; the seventh copies 63 KB more).
        do {
            _ = try patch("[\(copies)]").apply(to: document, copyBudget: 65_536)
            Issue.record("the copies were not stopped")
        } catch let error as JSONPatchError {
            #expect(error == .copiesTooMuch(index: 6, limit: 65_536))
        }
        let few = try patch("[\((0..<3).map { #"{"op":"copy","from":"/m","path":"/m/c\#($0)"}"# }.joined(separator: ","))]")
        #expect(try few.apply(to: document, copyBudget: 65_536).value(at: JSONPointer(tokens: ["m", "c2", "c1", "c0", "x"])) != nil)
    }

    @Test func theTypedPathLeavesAPatchThatCopiesTooMuchToTheGeneralOne() throws {
        var limits = DocumentLimits()
        limits.maximumDocumentBytes = 10_000
        let document = ListDocument(
            id: "l", revision: 1, sections: [ListSection(id: "s", items: [ListItem(id: "a", model: ["t": .string(String(repeating: "z", count: 4_000))])])])
        let copying = try patch(#"[{"op":"copy","from":"/sections/0/items/0/model","path":"/sections/0/items/0/model/c0"},"#
            + #"{"op":"copy","from":"/sections/0/items/0/model","path":"/sections/0/items/0/model/c1"}]"#)
        #expect(copying.applyToItems(of: document, limits: limits) == nil)
        let one = try patch(#"[{"op":"copy","from":"/sections/0/items/0/model","path":"/sections/0/items/0/model/c0"}]"#)
        #expect(one.applyToItems(of: document, limits: limits) != nil)
    }

    @Test func aPatchHasAtMostItsOperations() throws {
        let text = "[" + Array(repeating: #"{"op":"test","path":"","value":{}}"#, count: 11).joined(separator: ",") + "]"
        #expect(throws: JSONPatchError.tooManyOperations(limit: 10)) { try patch(text, maximumOperations: 10) }
        #expect(try patch(text, maximumOperations: 11).operations.count == 11)
    }

    // MARK: - Definitions

    private func definitionError(_ text: String, limits: DefinitionLimits = DefinitionLimits()) throws -> String? {
        let json = try reader.read(text)
        do {
            _ = try ViewDefinition(json: json, viewID: "v", limits: DocumentLimits(), definitionLimits: limits)
            return nil
        } catch {
            return error.pointer
        }
    }

    @Test func definitionsOverTheirCapsNameTheMember() throws {
        var limits = DefinitionLimits()
        limits.maximumConditions = 2
        limits.maximumSortKeys = 1
        limits.maximumInValues = 3
        limits.maximumValueBytes = 16
        let eq = #"{"path":"/id","op":"eq","value":"a"}"#
        #expect(try definitionError(#"{"of":"b","where":[\#(eq),\#(eq)]}"#, limits: limits) == nil)
        #expect(try definitionError(#"{"of":"b","where":[\#(eq),\#(eq),\#(eq)]}"#, limits: limits) == "/where/2")
        #expect(try definitionError(#"{"of":"b","sort":[{"path":"/id"},{"path":"/id"}]}"#, limits: limits) == "/sort/1")
        #expect(try definitionError(#"{"of":"b","where":[{"path":"/id","op":"in","value":[1,2,3,4]}]}"#, limits: limits) == "/where/0/value")
        #expect(try definitionError(#"{"of":"b","where":[{"path":"/id","op":"in","value":[1,"0123456789abcdef"]}]}"#, limits: limits) == "/where/0/value/1")
        #expect(try definitionError(#"{"of":"b","where":[{"path":"/id","op":"contains","value":"0123456789abcdef"}]}"#, limits: limits) == "/where/0/value")
        #expect(try definitionError(#"{"of":"b","where":[{"path":"/model/0123456789abcdef","op":"exists","value":true}]}"#, limits: limits) == "/where/0/path")
        #expect(try definitionError(#"{"of":"b","sections":{"by":"/model/0123456789abcdef"}}"#, limits: limits) == "/sections/by")
        // What was stored before is read without them.
        #expect(try definitionError(#"{"of":"b","where":[\#(eq),\#(eq),\#(eq)]}"#, limits: .unlimited) == nil)
    }

    // MARK: - Conditions

    @Test func inMatchesByJSONEqualityThroughItsSet() throws {
        let values: JSONValue = [1, "two", ["b": 2, "a": [1.0, nil]], false, 3.5]
        let condition = ViewCondition(path: JSONPointer(tokens: ["model", "v"]), op: .in, value: values)
        func holds(_ value: JSONValue) -> Bool { condition.holds(for: ListItem(id: "i", model: ["v": value]), section: "s") }
        let exponent = try reader.read("1e0")
        #expect(holds(1) && holds(1.0) && holds(exponent) && holds("two") && holds(false) && holds(3.5))
        #expect(holds(["a": [1, nil], "b": 2.0]))
        #expect(!holds(2) && !holds("Two") && !holds(true) && !holds(nil) && !holds(["a": [1, nil]]) && !holds([1]))
    }

    @Test func containsFindsExactlyTheSubstringsANaiveSearchFinds() {
        var generator = SplitMix64(seed: 40)
        let alphabet: [Character] = ["a", "b", "é", "🍰"]
        func word(_ length: Int) -> String { String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }) }
        for _ in 0..<2_000 {
            let text = word(Int.random(in: 0..<12, using: &generator))
            let needle = word(Int.random(in: 0..<4, using: &generator))
            let naive = needle.isEmpty || (0...max(0, text.utf8.count - needle.utf8.count)).contains { start in
                Array(text.utf8).dropFirst(start).starts(with: Array(needle.utf8))
            }
            #expect(SubstringSearch(needle).occurs(in: text) == naive, "\(needle) in \(text)")
        }
        // One pass over a text that defeats a naive search: "aaa…ab" in "aaa…a".
        let long = String(repeating: "a", count: 1_000_000)
        #expect(!SubstringSearch(String(repeating: "a", count: 1_000) + "b").occurs(in: long))
    }
}
