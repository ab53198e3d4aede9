import Testing
@testable import ListDeltaCore

@Suite struct ViewEvaluationTests {
    private let reader = JSONReader()
    private let limits = DocumentLimits()

    private func view(_ text: String) throws -> ViewDefinition {
        try ViewDefinition(json: reader.read(text), viewID: "v", limits: limits)
    }

    private func item(_ id: String, _ model: JSONValue = .null, type: String? = nil, cell: String? = nil) -> ListItem {
        ListItem(id: id, type: type, cell: cell, model: model)
    }

    /// The ids the view shows, section by section.
    private func ids(_ text: String, over base: ListDocument?) throws -> [[String]] {
        try view(text).evaluate(over: base, viewID: "v", revision: 3, limits: limits).sections.map { $0.items.map(\.id) }
    }

    /// The ids of `base`'s items for which the single condition holds, in base order.
    private func matching(_ condition: String, in base: ListDocument) throws -> [String] {
        try ids(#"{"of": "b", "sections": "none", "where": [\#(condition)]}"#, over: base).flatMap { $0 }
    }

    private var values: ListDocument {
        ListDocument(id: "b", sections: [
            ListSection(id: "s1", items: [
                item("a", ["x": 1, "s": "apple", "t": ["red", 1]]),
                item("b", ["x": 2.0, "s": "Apple", "t": []]),
                item("c", ["x": "2", "s": "banana"]),
                item("d", ["x": .null, "s": ""], type: "T", cell: "C"),
            ]),
            ListSection(id: "s2", items: [
                item("e", ["x": true, "s": "e\u{301}"]),
                item("f", ["x": ["k": 1], "s": "\u{e9}"]),
                item("g", .null),
                item("h", ["x": 10, "s": "applesauce", "t": [["k": 1]]]),
            ]),
        ])
    }

    @Test func equalityComparesJSONValues() throws {
        #expect(try matching(#"{"path": "/model/x", "op": "eq", "value": 2}"#, in: values) == ["b"])
        #expect(try matching(#"{"path": "/model/x", "op": "eq", "value": "2"}"#, in: values) == ["c"])
        #expect(try matching(#"{"path": "/model/x", "op": "eq", "value": null}"#, in: values) == ["d"])
        #expect(try matching(#"{"path": "/model/x", "op": "eq", "value": {"k": 1.0}}"#, in: values) == ["f"])
        #expect(try matching(#"{"path": "/model/x", "op": "ne", "value": 2}"#, in: values) == ["a", "c", "d", "e", "f", "g", "h"])
        #expect(try matching(#"{"path": "/section", "op": "eq", "value": "s2"}"#, in: values) == ["e", "f", "g", "h"])
        #expect(try matching(#"{"path": "/id", "op": "eq", "value": "g"}"#, in: values) == ["g"])
    }

    @Test func missingMembersFollowTheItemsJSON() throws {
        // type is left out when absent (missing); cell is null when absent.
        #expect(try matching(#"{"path": "/type", "op": "exists", "value": true}"#, in: values) == ["d"])
        #expect(try matching(#"{"path": "/type", "op": "eq", "value": null}"#, in: values) == [])
        #expect(try matching(#"{"path": "/cell", "op": "eq", "value": null}"#, in: values) == ["a", "b", "c", "e", "f", "g", "h"])
        #expect(try matching(#"{"path": "/cell", "op": "exists", "value": false}"#, in: values) == [])
        #expect(try matching(#"{"path": "/model", "op": "eq", "value": null}"#, in: values) == ["g"])
    }

    @Test func orderingNeedsTwoNumbersOrTwoStrings() throws {
        #expect(try matching(#"{"path": "/model/x", "op": "lt", "value": 2}"#, in: values) == ["a"])
        #expect(try matching(#"{"path": "/model/x", "op": "lte", "value": 2}"#, in: values) == ["a", "b"])
        #expect(try matching(#"{"path": "/model/x", "op": "gt", "value": 1}"#, in: values) == ["b", "h"])
        #expect(try matching(#"{"path": "/model/x", "op": "gte", "value": 1e1}"#, in: values) == ["h"])
        #expect(try matching(#"{"path": "/model/x", "op": "gte", "value": "1"}"#, in: values) == ["c"])
        // By code points: "A" < "a" < "b"; "e\u0301" < "\u00e9" though they are canonically equivalent.
        #expect(try matching(#"{"path": "/model/s", "op": "lt", "value": "apple"}"#, in: values) == ["b", "d"])
        #expect(try matching(#"{"path": "/model/s", "op": "gt", "value": "e\u0301"}"#, in: values) == ["f"])
        // eq is JSONValue's equality, which is Swift's String equality: canonically equivalent strings are equal.
        #expect(try matching(#"{"path": "/model/s", "op": "eq", "value": "\u00e9"}"#, in: values) == ["e", "f"])
    }

    @Test func inContainsPrefixAndExists() throws {
        #expect(try matching(#"{"path": "/model/x", "op": "in", "value": [1, "2", true]}"#, in: values) == ["a", "c", "e"])
        #expect(try matching(#"{"path": "/model/x", "op": "in", "value": []}"#, in: values) == [])
        #expect(try matching(#"{"path": "/model/s", "op": "contains", "value": "ppl"}"#, in: values) == ["a", "b", "h"])
        #expect(try matching(#"{"path": "/model/s", "op": "contains", "value": "\u0301"}"#, in: values) == ["e"])
        #expect(try matching(#"{"path": "/model/t", "op": "contains", "value": 1}"#, in: values) == ["a"])
        #expect(try matching(#"{"path": "/model/t", "op": "contains", "value": {"k": 1}}"#, in: values) == ["h"])
        #expect(try matching(#"{"path": "/model/s", "op": "contains", "value": ""}"#, in: values) == ["a", "b", "c", "d", "e", "f", "h"])
        #expect(try matching(#"{"path": "/model/s", "op": "prefix", "value": "apple"}"#, in: values) == ["a", "h"])
        #expect(try matching(#"{"path": "/model/s", "op": "prefix", "value": "e"}"#, in: values) == ["e"])
        #expect(try matching(#"{"path": "/model/t/0", "op": "exists", "value": true}"#, in: values) == ["a", "h"])
        #expect(try matching(#"{"path": "/model/t/01", "op": "exists", "value": true}"#, in: values) == [])
        #expect(try matching(#"{"path": "/model/t/1", "op": "eq", "value": 1}"#, in: values) == ["a"])
        #expect(try matching(#"{"path": "/model/t/0/k", "op": "eq", "value": 1}"#, in: values) == ["h"])
    }

    @Test func aMissingPathFailsEveryOpButNeAndExistsFalse() throws {
        for op in ["eq": "null", "lt": "1", "lte": "\"z\"", "gt": "0", "gte": "0", "in": "[null]", "contains": "\"\"", "prefix": "\"\"", "exists": "true"] {
            #expect(try matching(#"{"path": "/model/nope", "op": "\#(op.key)", "value": \#(op.value)}"#, in: values) == [], "\(op.key)")
        }
        let all = ["a", "b", "c", "d", "e", "f", "g", "h"]
        #expect(try matching(#"{"path": "/model/nope", "op": "ne", "value": null}"#, in: values) == all)
        #expect(try matching(#"{"path": "/model/nope", "op": "exists", "value": false}"#, in: values) == all)
    }

    @Test func conditionsAllHold() throws {
        let ids = try ids(#"{"of": "b", "sections": "none", "where": [{"path": "/model/s", "op": "prefix", "value": "a"}, {"path": "/model/x", "op": "gt", "value": 5}]}"#, over: values)
        #expect(ids == [["h"]])
    }

    private var mixed: ListDocument {
        ListDocument(id: "b", sections: [
            ListSection(id: "s1", items: [
                item("str-b", ["k": "b"]), item("num-2", ["k": 2]), item("obj", ["k": ["z": 1]]), item("missing1", [:]),
                item("null", ["k": .null]), item("true", ["k": true]),
            ]),
            ListSection(id: "s2", items: [
                item("false", ["k": false]), item("arr", ["k": [1]]), item("str-a", ["k": "a"]), item("num-10", ["k": 1e1]),
                item("missing2", .null), item("num-2b", ["k": 2.0]), item("obj2", ["k": [:]]),
            ]),
        ])
    }

    @Test func sortOrdersMixedTypesAndKeepsTiesInBaseOrder() throws {
        let ascending = try ids(#"{"of": "b", "sections": "none", "sort": [{"path": "/model/k"}]}"#, over: mixed)
        #expect(ascending == [["missing1", "missing2", "null", "false", "true", "num-2", "num-2b", "num-10", "str-a", "str-b", "obj", "arr", "obj2"]])
        let descending = try ids(#"{"of": "b", "sections": "none", "sort": [{"path": "/model/k", "order": "desc"}]}"#, over: mixed)
        #expect(descending == [["obj", "arr", "obj2", "str-b", "str-a", "num-10", "num-2", "num-2b", "true", "false", "null", "missing1", "missing2"]])
        // A second key breaks the first one's ties.
        let twoKeys = try ids(#"{"of": "b", "sections": "none", "sort": [{"path": "/model/k", "order": "desc"}, {"path": "/id", "order": "desc"}]}"#, over: mixed)
        #expect(twoKeys == [["obj2", "obj", "arr", "str-b", "str-a", "num-10", "num-2b", "num-2", "true", "false", "null", "missing2", "missing1"]])
    }

    @Test func limitTakesTheFirstItemsAfterSorting() throws {
        #expect(try ids(#"{"of": "b", "sections": "none", "sort": [{"path": "/model/k"}], "limit": 3}"#, over: mixed) == [["missing1", "missing2", "null"]])
        #expect(try ids(#"{"of": "b", "sections": "none", "sort": [{"path": "/model/k", "order": "desc"}], "limit": 1}"#, over: mixed) == [["obj"]])
    }

    @Test func offsetSkipsItemsAfterSortingBeforeTheLimit() throws {
        let window = #"{"of": "b", "sections": "none", "sort": [{"path": "/model/k"}], "offset": 3, "limit": 4}"#
        #expect(try ids(window, over: mixed) == [["false", "true", "num-2", "num-2b"]])
        #expect(try ids(#"{"of": "b", "sections": "none", "sort": [{"path": "/model/k"}], "offset": 11}"#, over: mixed) == [["arr", "obj2"]])
        // A window past the last match holds nothing: no section with keep, the one empty section with none.
        #expect(try ids(#"{"of": "b", "offset": 13}"#, over: mixed) == [])
        #expect(try ids(#"{"of": "b", "sections": "none", "offset": 13}"#, over: mixed) == [[]])
    }

    @Test func keepKeepsBaseSectionsInBaseOrder() throws {
        let base = ListDocument(id: "b", kind: .array, revision: 9, cells: ["T": "C"], sections: [
            ListSection(id: "x", title: "X", indexTitle: "x", items: [item("1", ["n": 3]), item("2", ["n": 1])]),
            ListSection(id: "empty", title: "E", items: [item("3", ["n": 9])]),
            ListSection(id: "y", title: nil, indexTitle: "y", items: [item("4", ["n": 2]), item("5", ["n": 0])]),
        ])
        let document = try view(#"{"of": "b", "where": [{"path": "/model/n", "op": "lt", "value": 5}], "sort": [{"path": "/model/n"}]}"#)
            .evaluate(over: base, viewID: "v", revision: 4, limits: limits)
        #expect(document == ListDocument(id: "v", kind: .array, revision: 4, cells: ["T": "C"], sections: [
            ListSection(id: "x", title: "X", indexTitle: "x", items: [base.sections[0].items[1], base.sections[0].items[0]]),
            ListSection(id: "y", title: nil, indexTitle: "y", items: [base.sections[2].items[1], base.sections[2].items[0]]),
        ]))
        // The limit counts items across sections in sorted order.
        #expect(try ids(#"{"of": "b", "sort": [{"path": "/model/n"}], "limit": 2}"#, over: base) == [["2"], ["5"]])
    }

    @Test func noneMakesOneMainSection() throws {
        let document = try view(#"{"of": "b", "sections": "none", "where": [{"path": "/id", "op": "eq", "value": "none"}]}"#)
            .evaluate(over: mixed, viewID: "v", revision: 2, limits: limits)
        #expect(document == ListDocument(id: "v", kind: .array, revision: 2, sections: [ListSection(id: "main")]))
        #expect(JSONWriter.string(of: document.sections[0].jsonValue) == #"{"id":"main","title":null,"indexTitle":null,"items":[]}"#)
    }

    @Test func aMissingBaseHoldsNoItems() throws {
        #expect(try view(#"{"of": "b"}"#).evaluate(over: nil, viewID: "v", revision: 1, limits: limits)
            == ListDocument(id: "v", kind: .sections, revision: 1, sections: []))
        #expect(try view(#"{"of": "b", "sections": "none"}"#).evaluate(over: nil, viewID: "v", revision: 1, limits: limits)
            == ListDocument(id: "v", kind: .array, revision: 1, sections: [ListSection(id: "main")]))
        #expect(try view(#"{"of": "b", "sections": {"by": "/id"}}"#).evaluate(over: nil, viewID: "v", revision: 1, limits: limits)
            == ListDocument(id: "v", kind: .sections, revision: 1, sections: []))
    }

    @Test func byGroupsByTextInOrderOfFirstAppearance() throws {
        let base = ListDocument(id: "b", kind: .array, cells: [:], sections: [
            ListSection(id: "s", items: [
                item("1", ["c": "fruit"]), item("2", ["c": 12]), item("3", ["c": "12"]), item("4", [:]), item("5", ["c": .null]),
                item("6", ["c": ""]), item("7", ["c": ["a": [1, true]]]), item("8", ["c": "fruit"]), item("9", try reader.read(#"{"c": 12.0}"#)),
                item("10", ["c": false]),
            ]),
        ])
        let document = try view(#"{"of": "b", "sections": {"by": "/model/c"}}"#).evaluate(over: base, viewID: "v", revision: 1, limits: limits)
        #expect(document.kind == .sections)
        #expect(document.cells == [:])
        #expect(document.sections.map(\.header) == ["fruit", "12", "null", "\"\"", #"{"a":[1,true]}"#, "12.0", "false"].map {
            SectionHeader(id: $0, title: $0, indexTitle: nil)
        })
        #expect(document.sections.map { $0.items.map(\.id) } == [["1", "8"], ["2", "3"], ["4", "5"], ["6"], ["7"], ["9"], ["10"]])
        // By the base section.
        #expect(try ids(#"{"of": "b", "sections": {"by": "/section"}, "sort": [{"path": "/model/k", "order": "desc"}]}"#, over: mixed)
            == [["obj", "str-b", "num-2", "true", "null", "missing1"], ["arr", "obj2", "str-a", "num-10", "num-2b", "false", "missing2"]])
    }

    @Test func byCutsLongTextsAndStopsAtTheSectionLimit() throws {
        var small = DocumentLimits()
        small.maximumIDBytes = 4
        small.maximumSections = 3
        let base = ListDocument(id: "b", sections: [
            ListSection(id: "s", items: [
                item("1", ["c": "abcdef"]), item("2", ["c": "abcdxy"]), item("3", ["c": "aé€"]), item("4", ["c": "x"]),
                item("5", ["c": "y"]), item("6", ["c": "x"]), item("7", ["c": "abcd"]),
            ]),
        ])
        let document = try ViewDefinition(json: reader.read(#"{"of": "b", "sections": {"by": "/model/c"}}"#), viewID: "v", limits: small)
            .evaluate(over: base, viewID: "v", revision: 1, limits: small)
        #expect(document.sections.map(\.header) == [
            SectionHeader(id: "abcd", title: "abcdef"), SectionHeader(id: "aé", title: "aé€"), SectionHeader(id: "x", title: "x"),
        ])
        #expect(document.sections.map { $0.items.map(\.id) } == [["1", "2", "7"], ["3"], ["4", "6"]])
        #expect(ViewDefinition.sectionID(for: "e\u{301}\u{301}\u{301}", maximumBytes: 3) == "e\u{301}")
        #expect(ViewDefinition.sectionID(for: "€", maximumBytes: 2) == "-")
    }

    @Test func itemsAreTheBasesItemsAsTheyAre() throws {
        let base = ListDocument(id: "b", cells: ["T": "C"], sections: [ListSection(id: "s", items: [item("1", ["deep": [1, [2]]], type: "T", cell: "C")])])
        let document = try view(#"{"of": "b"}"#).evaluate(over: base, viewID: "v", revision: 5, limits: limits)
        #expect(document.sections[0].items == base.sections[0].items)
        #expect(document.id == "v")
        #expect(document.revision == 5)
    }
}
