import Foundation
import Testing
@testable import ListDeltaCore

/// `q` as API.md's "Live queries" reads it: its errors, its canonical form and its result.
@Suite struct LiveQueryTests {
    private var limits: DocumentLimits {
        var limits = DocumentLimits()
        limits.maximumItems = 1_000
        return limits
    }

    private func query(_ text: String) throws(ViewDefinitionError) -> LiveQuery {
        try LiveQuery(text: text, base: "inbox", limits: limits)
    }

    private func pointer(_ text: String) -> String? {
        do throws(ViewDefinitionError) {
            _ = try query(text)
            return nil
        } catch {
            #expect(!error.detail.isEmpty)
            return error.pointer
        }
    }

    @Test func theCanonicalFormOrdersMembersAndLeavesDefaultsOut() throws {
        let q = try query("""
            { "limit": 20, "sections": "keep", "offset": 0,
              "sort": [{"order": "desc", "path": "/model/date"}, {"path": "/id", "order": "asc"}],
              "where": [{"value": {"b": 1, "a": [1.50, "x"]}, "op": "eq", "path": "/model/read"}] }
            """)
        #expect(q.canonicalJSON == #"{"where":[{"path":"/model/read","op":"eq","value":{"b":1,"a":[1.50,"x"]}}],"sort":[{"path":"/model/date","order":"desc"},{"path":"/id"}],"limit":20}"#)
        #expect(q.definition.base == "inbox")
        #expect(!q.isWholeList)
        #expect(try query(q.canonicalJSON) == q)
        #expect(try query(#"{"offset": 40, "limit": 20, "sections": "none"}"#).canonicalJSON == #"{"offset":40,"limit":20,"sections":"none"}"#)
        #expect(try query(#"{"sections": {"by": "/model/a~1b"}}"#).canonicalJSON == #"{"sections":{"by":"/model/a~1b"}}"#)
    }

    @Test func everyDefaultSpelledOutIsTheWholeList() throws {
        for text in ["{}", " { } ", #"{"where": [], "sort": [], "offset": 0, "limit": 1000, "sections": "keep"}"#] {
            let q = try query(text)
            #expect(q.canonicalJSON == "{}", "\(text)")
            #expect(q.isWholeList)
            #expect(q.percentEncoded == "%7B%7D")
        }
    }

    @Test(arguments: [
        // The text.
        ("", "/q"), ("{", "/q"), ("[]", "/q"), ("null", "/q"), (#""where""#, "/q"), ("{} {}", "/q"),
        // Members.
        (#"{"of": "inbox"}"#, "/q/of"), (#"{"basedOn": 1}"#, "/q/basedOn"), (#"{"filter": []}"#, "/q/filter"),
        (#"{"where": [{"path": "/id", "op": "like", "value": 1}]}"#, "/q/where/0/op"),
        (#"{"where": [{"path": "/id", "op": "eq", "value": 1}, {"path": "id", "op": "eq", "value": 1}]}"#, "/q/where/1/path"),
        (#"{"sort": [{"path": "/id", "order": "up"}]}"#, "/q/sort/0/order"),
        (#"{"offset": -1}"#, "/q/offset"), (#"{"offset": 1001}"#, "/q/offset"),
        (#"{"limit": 0}"#, "/q/limit"), (#"{"limit": 1001}"#, "/q/limit"), (#"{"limit": "5"}"#, "/q/limit"),
        (#"{"sections": "all"}"#, "/q/sections"), (#"{"sections": {"by": "/x"}}"#, "/q/sections/by"),
    ])
    func aBadQueryNamesItsMemberBelowQ(text: String, expected: String) {
        #expect(pointer(text) == expected)
    }

    @Test func aQueryOverItsByteBoundIsRefusedBeforeItIsRead() {
        let padding = String(repeating: " ", count: LiveQuery.maximumBytes - 2)
        #expect(pointer("{" + padding + "}") == nil)
        #expect(pointer("{" + padding + " }") == "/q")
    }

    @Test func theDefinitionLimitsApply() {
        var strict = DefinitionLimits()
        strict.maximumConditions = 1
        let text = #"{"where": [{"path": "/id", "op": "exists", "value": true}, {"path": "/id", "op": "exists", "value": true}]}"#
        #expect(throws: ViewDefinitionError.self) { try LiveQuery(text: text, base: "b", limits: limits, definitionLimits: strict) }
    }

    @Test func tagsDifferBetweenQueriesAndNotBetweenSpellings() throws {
        let a = try query(#"{"limit": 20, "sort": [{"path": "/id", "order": "asc"}]}"#)
        let b = try query(#"{"sort": [{"path": "/id"}], "limit": 20.0}"#)
        let c = try query(#"{"sort": [{"path": "/id"}], "limit": 21}"#)
        #expect(a.tag == b.tag)
        #expect(a.tag != c.tag)
        #expect(a.tag.count == 16 && a.tag.allSatisfy(\.isHexDigit))
        // FNV-1a 64 of "{}", fixed: every instance and every release tags a query alike.
        #expect(try query("{}").tag == "08f44b07b5901a25")
    }

    @Test func percentEncodingIsEncodeURIComponents() {
        #expect(PercentEncoding.uriComponent(#"{"a":"é €/?&= +%"}"#) == "%7B%22a%22%3A%22%C3%A9%20%E2%82%AC%2F%3F%26%3D%20%2B%25%22%7D")
        #expect(PercentEncoding.uriComponent("AZaz09-_.!~*'()") == "AZaz09-_.!~*'()")
        var allowed = CharacterSet()
        allowed.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
        var random = SplitMix64(seed: 40)
        let alphabet = Array("aZ9 \"{}[]:,/~%+&=?#é€𝄞\u{7f}\u{0}-_.!*'()")
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...24, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            #expect(PercentEncoding.uriComponent(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text)")
        }
    }

    /// However a query is spelled, its canonical form is the one of its definition, reads back equal, and its
    /// result at a revision is the naive evaluation's.
    @Test(arguments: 0..<4)
    func randomQueriesCanonicalizeAndEvaluateAsViews(batch: Int) throws {
        var generator = ViewPropertyTests.Generator(seed: UInt64(4_000 + batch))
        for _ in 0..<100 {
            let drawn = generator.definition(limits: limits)
            let definition = ViewDefinition(
                base: "inbox", conditions: drawn.conditions, sort: drawn.sort, offset: drawn.offset, limit: drawn.limit,
                sections: drawn.sections)
            let expected = LiveQuery(definition: definition, defaultLimit: limits.maximumItems)
            let spelled = Self.spelling(of: definition, defaultLimit: limits.maximumItems, &generator)
            let q = try query(spelled)
            #expect(q.definition == definition, "\(spelled)")
            #expect(q.canonicalJSON == expected.canonicalJSON, "\(spelled)")
            #expect(try query(q.canonicalJSON).canonicalJSON == q.canonicalJSON)
            #expect(q.tag == expected.tag)
            let base = generator.document()
            let revision = generator.int(1...99)
            let result = q.result(over: base, revision: revision, limits: limits)
            #expect(result == ViewPropertyTests.naive(definition, over: base, viewID: "inbox", revision: revision, limits: limits))
        }
    }

    /// `definition` as a client might write it: members in a random order, defaults sometimes spelled out,
    /// `"order": "asc"` sometimes written, condition members shuffled.
    private static func spelling(of definition: ViewDefinition, defaultLimit: Int, _ generator: inout ViewPropertyTests.Generator) -> String {
        var members: [(String, JSONValue)] = []
        if !definition.conditions.isEmpty || generator.chance(0.3) {
            members.append(("where", .array(definition.conditions.map { condition in
                var object = JSONObject()
                var parts: [(String, JSONValue)] = [
                    ("path", .string(condition.path.description)), ("op", .string(condition.op.rawValue)), ("value", condition.value)]
                if generator.chance(0.5) { parts.reverse() }
                for (key, value) in parts { object.appendUnchecked(key, value) }
                return .object(object)
            })))
        }
        if !definition.sort.isEmpty || generator.chance(0.3) {
            members.append(("sort", .array(definition.sort.map { key in
                var object = JSONObject()
                object.appendUnchecked("path", .string(key.path.description))
                if key.descending || generator.chance(0.5) { object.appendUnchecked("order", .string(key.descending ? "desc" : "asc")) }
                return .object(object)
            })))
        }
        if definition.offset != 0 || generator.chance(0.3) { members.append(("offset", .number(JSONNumber(definition.offset)))) }
        if definition.limit != defaultLimit || generator.chance(0.3) { members.append(("limit", .number(JSONNumber(definition.limit)))) }
        if definition.sections != .keep || generator.chance(0.3) { members.append(("sections", definition.sections.jsonValue)) }
        members.shuffle(using: &generator.random)
        var object = JSONObject()
        for (key, value) in members { object.appendUnchecked(key, value) }
        let text = JSONWriter.string(of: .object(object))
        return generator.chance(0.5) ? " " + text + "\n" : text
    }
}
