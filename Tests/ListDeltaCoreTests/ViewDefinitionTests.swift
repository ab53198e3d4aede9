import Testing
@testable import ListDeltaCore

@Suite struct ViewDefinitionTests {
    private let reader = JSONReader()
    private var limits: DocumentLimits {
        var limits = DocumentLimits()
        limits.maximumItems = 1_000
        return limits
    }

    private func definition(_ text: String, viewID: String = "v") throws -> ViewDefinition {
        try ViewDefinition(json: reader.read(text), viewID: viewID, limits: limits)
    }

    /// The pointer of the error that reading `text` throws, or `nil` when it reads.
    private func pointer(_ text: String, viewID: String = "v") throws -> String? {
        let json = try reader.read(text)
        do {
            _ = try ViewDefinition(json: json, viewID: viewID, limits: limits)
            return nil
        } catch {
            #expect(!error.detail.isEmpty)
            return error.pointer
        }
    }

    @Test func defaultsAreFilledIn() throws {
        let view = try definition(#"{"of": "inbox"}"#)
        #expect(view == ViewDefinition(base: "inbox", conditions: [], sort: [], offset: 0, limit: 1_000, sections: .keep))
        #expect(JSONWriter.string(of: view.jsonValue) == #"{"of":"inbox","where":[],"sort":[],"offset":0,"limit":1000,"sections":"keep"}"#)
    }

    @Test func everyMemberIsRead() throws {
        let view = try definition("""
            {"of": "inbox", "offset": 40, "limit": 20, "sections": {"by": "/model/category"},
             "where": [{"path": "/model/read", "op": "eq", "value": false},
                       {"path": "/section", "op": "in", "value": ["a", "b"]},
                       {"path": "/model/tags/0", "op": "exists", "value": true}],
             "sort": [{"path": "/model/date", "order": "desc"}, {"path": "/id"}]}
            """)
        #expect(view.base == "inbox")
        #expect(view.offset == 40)
        #expect(view.limit == 20)
        #expect(view.sections == .by(JSONPointer(tokens: ["model", "category"])))
        #expect(view.conditions == [
            ViewCondition(path: JSONPointer(tokens: ["model", "read"]), op: .eq, value: false),
            ViewCondition(path: JSONPointer(tokens: ["section"]), op: .in, value: ["a", "b"]),
            ViewCondition(path: JSONPointer(tokens: ["model", "tags", "0"]), op: .exists, value: true),
        ])
        #expect(view.sort == [ViewSortKey(path: JSONPointer(tokens: ["model", "date"]), descending: true), ViewSortKey(path: JSONPointer(tokens: ["id"]))])
        #expect(try ViewDefinition(json: view.jsonValue, viewID: "v", limits: limits) == view)
        #expect(JSONWriter.string(of: view.jsonValue).contains(#""sort":[{"path":"/model/date","order":"desc"},{"path":"/id","order":"asc"}]"#))
    }

    @Test(arguments: [
        #"{"of": "b", "sections": "none", "limit": 1}"#,
        #"{"of": "b", "offset": 1000, "limit": 3.0}"#,
        #"{"of": "b", "sections": {"by": "/model/a~1b~0c"}, "limit": 2.0}"#,
        #"{"of": "b", "where": [{"path": "/cell", "op": "ne", "value": {"x": [1, null]}}], "sort": [{"path": "/section", "order": "asc"}]}"#,
        #"{"of": "b", "where": [{"path": "/type", "op": "prefix", "value": ""}, {"path": "/model", "op": "lt", "value": 1.5}]}"#,
    ])
    func canonicalJSONRoundTrips(text: String) throws {
        let view = try definition(text)
        let again = try ViewDefinition(json: view.jsonValue, viewID: "v", limits: limits)
        #expect(again == view)
        #expect(again.jsonValue == view.jsonValue)
        guard case .object(let object) = view.jsonValue else { Issue.record("not an object"); return }
        #expect(object.keys == ["of", "where", "sort", "offset", "limit", "sections"])
    }

    @Test func limitAcceptsIntegralNumbers() throws {
        #expect(try definition(#"{"of": "b", "limit": 2.0}"#).limit == 2)
        #expect(try definition(#"{"of": "b", "limit": 1000}"#).limit == 1_000)
        #expect(try definition(#"{"of": "b", "limit": 1}"#).limit == 1)
    }

    @Test func offsetAcceptsIntegralNumbersUpToTheItemsPerList() throws {
        #expect(try definition(#"{"of": "b"}"#).offset == 0)
        #expect(try definition(#"{"of": "b", "offset": 40.0}"#).offset == 40)
        #expect(try definition(#"{"of": "b", "offset": 1000}"#).offset == 1_000)
    }

    /// A stored definition is read without the definition limits, and a release before `offset` stored `limit: 0`.
    @Test func aStoredLimitOfZeroIsStillRead() throws {
        let json = try reader.read(#"{"of": "b", "limit": 0}"#)
        #expect(try ViewDefinition(json: json, viewID: "v", limits: limits, definitionLimits: .unlimited).limit == 0)
    }

    @Test(arguments: [
        // The body.
        (#"[]"#, ""), (#""x""#, ""), (#"{"of": "b", "extra": 1}"#, "/extra"), (#"{"of": "b", "a/b": 1}"#, "/a~1b"),
        // of.
        (#"{}"#, "/of"), (#"{"of": null}"#, "/of"), (#"{"of": 1}"#, "/of"), (#"{"of": "a b"}"#, "/of"), (#"{"of": ".."}"#, "/of"),
        (#"{"of": "v"}"#, "/of"), (#"{"of": ""}"#, "/of"),
        // where.
        (#"{"of": "b", "where": {}}"#, "/where"), (#"{"of": "b", "where": null}"#, "/where"),
        (#"{"of": "b", "where": [1]}"#, "/where/0"),
        (#"{"of": "b", "where": [{"op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "eq", "value": 1}, {"path": "model", "op": "eq", "value": 1}]}"#, "/where/1/path"),
        (#"{"of": "b", "where": [{"path": "", "op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": "/", "op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": "/items", "op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": "/section/x", "op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": "/model/~2", "op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": 7, "op": "eq", "value": 1}]}"#, "/where/0/path"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "like", "value": 1}]}"#, "/where/0/op"),
        (#"{"of": "b", "where": [{"path": "/id", "value": 1}]}"#, "/where/0/op"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "eq"}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "lt", "value": true}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "gte", "value": null}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "gt", "value": [1]}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "lte", "value": {}}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "in", "value": "a"}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "prefix", "value": 1}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "exists", "value": "yes"}]}"#, "/where/0/value"),
        (#"{"of": "b", "where": [{"path": "/id", "op": "eq", "value": 1, "x": 2}]}"#, "/where/0/x"),
        // sort.
        (#"{"of": "b", "sort": "id"}"#, "/sort"), (#"{"of": "b", "sort": ["/id"]}"#, "/sort/0"),
        (#"{"of": "b", "sort": [{"path": "/id"}, {"order": "asc"}]}"#, "/sort/1/path"),
        (#"{"of": "b", "sort": [{"path": "/title"}]}"#, "/sort/0/path"),
        (#"{"of": "b", "sort": [{"path": "/id", "order": "up"}]}"#, "/sort/0/order"),
        (#"{"of": "b", "sort": [{"path": "/id", "order": null}]}"#, "/sort/0/order"),
        (#"{"of": "b", "sort": [{"path": "/id", "by": 1}]}"#, "/sort/0/by"),
        // limit.
        (#"{"of": "b", "limit": -1}"#, "/limit"), (#"{"of": "b", "limit": 0}"#, "/limit"), (#"{"of": "b", "limit": 1001}"#, "/limit"), (#"{"of": "b", "limit": 1.5}"#, "/limit"),
        (#"{"of": "b", "limit": "5"}"#, "/limit"), (#"{"of": "b", "limit": null}"#, "/limit"), (#"{"of": "b", "limit": 1e400}"#, "/limit"),
        // offset.
        (#"{"of": "b", "offset": -1}"#, "/offset"), (#"{"of": "b", "offset": 1001}"#, "/offset"), (#"{"of": "b", "offset": 0.5}"#, "/offset"),
        (#"{"of": "b", "offset": "5"}"#, "/offset"), (#"{"of": "b", "offset": null}"#, "/offset"),
        // sections.
        (#"{"of": "b", "sections": "all"}"#, "/sections"), (#"{"of": "b", "sections": null}"#, "/sections"),
        (#"{"of": "b", "sections": ["keep"]}"#, "/sections"), (#"{"of": "b", "sections": {}}"#, "/sections/by"),
        (#"{"of": "b", "sections": {"by": 1}}"#, "/sections/by"), (#"{"of": "b", "sections": {"by": "/x"}}"#, "/sections/by"),
        (#"{"of": "b", "sections": {"by": "/id", "title": "x"}}"#, "/sections/title"),
    ])
    func badDefinitionsNameTheirMember(text: String, expected: String) throws {
        #expect(try pointer(text) == expected)
    }

    @Test func aValidPathMayGoDeepIntoAnyItemMember() throws {
        for path in ["/id", "/type", "/cell", "/model", "/model/a/0/b", "/section", "/model/", "/model/~0~1"] {
            #expect(try pointer(#"{"of": "b", "where": [{"path": "\#(path)", "op": "exists", "value": true}]}"#) == nil, "\(path)")
        }
    }

    /// Only the model has members: a path below a string would match nothing, ever.
    @Test func aPathBelowAStringMemberIsRefused() throws {
        for path in ["/id/x", "/type/0", "/cell/x", "/section/x"] {
            #expect(try pointer(#"{"of": "b", "where": [{"path": "\#(path)", "op": "exists", "value": true}]}"#) == "/where/0/path", "\(path)")
            #expect(try pointer(#"{"of": "b", "sort": [{"path": "\#(path)"}]}"#) == "/sort/0/path", "\(path)")
        }
    }

    /// What GET .../view answers can be sent back: its read-only `basedOn` is ignored.
    @Test func aServedDefinitionReadsBackWithItsBasedOn() throws {
        #expect(try pointer(#"{"of": "b", "basedOn": 7}"#) == nil)
        #expect(try definition(#"{"of": "b", "basedOn": 7}"#) == definition(#"{"of": "b"}"#))
    }

    @Test func kindFollowsTheSectionsMode() throws {
        let keep = try definition(#"{"of": "b"}"#)
        #expect(keep.kind(ofBase: .array) == .array)
        #expect(keep.kind(ofBase: nil) == .sections)
        #expect(try definition(#"{"of": "b", "sections": "none"}"#).kind(ofBase: .sections) == .array)
        #expect(try definition(#"{"of": "b", "sections": {"by": "/id"}}"#).kind(ofBase: .array) == .sections)
    }
}
