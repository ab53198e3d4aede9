import Testing
@testable import ListDeltaCore

@Suite struct JSONPatchTests {
    private func apply(_ patch: String, to document: String) throws -> JSONValue {
        let reader = JSONReader()
        return try JSONPatch(json: try reader.read(patch)).apply(to: try reader.read(document))
    }

    @Test func everyOperationWorks() throws {
        let result = try apply(#"""
            [{"op":"add","path":"/a/-","value":4},
             {"op":"add","path":"/a/0","value":0},
             {"op":"remove","path":"/a/1"},
             {"op":"replace","path":"/b","value":{"x":1}},
             {"op":"move","from":"/b/x","path":"/c"},
             {"op":"copy","from":"/a","path":"/d"},
             {"op":"test","path":"/d","value":[0,2,3,4]},
             {"op":"add","path":"/e~1f","value":null}]
            """#, to: #"{"a":[1,2,3],"b":2}"#)
        #expect(result == (try JSONReader().read(#"{"a":[0,2,3,4],"b":{},"c":1,"d":[0,2,3,4],"e/f":null}"#)))
    }

    @Test func replaceOfTheRootAndAddToTheRoot() throws {
        #expect(try apply(#"[{"op":"replace","path":"","value":[1]}]"#, to: "{}") == [1])
        #expect(try apply(#"[{"op":"add","path":"","value":2}]"#, to: "{}") == 2)
    }

    @Test(arguments: [
        (#"[{"op":"remove","path":"/missing"}]"#, 0, "remove"),
        (#"[{"op":"add","path":"/a/b","value":1}]"#, 0, "add"),
        (#"[{"op":"add","path":"/list/5","value":1}]"#, 0, "add"),
        (#"[{"op":"add","path":"/list/01","value":1}]"#, 0, "add"),
        (#"[{"op":"replace","path":"/nope","value":1}]"#, 0, "replace"),
        (#"[{"op":"test","path":"/a","value":2},{"op":"remove","path":"/a"}]"#, 0, "test"),
        (#"[{"op":"remove","path":"/a"},{"op":"test","path":"/a","value":1}]"#, 1, "test"),
        (#"[{"op":"move","from":"/list","path":"/list/0"}]"#, 0, "move"),
        (#"[{"op":"copy","from":"/x","path":"/y"}]"#, 0, "copy"),
        (#"[{"op":"remove","path":""}]"#, 0, "remove"),
    ])
    func failuresNameTheOperation(patch: String, index: Int, op: String) throws {
        let document = try JSONReader().read(#"{"a":1,"list":[1,2]}"#)
        let parsed = try JSONPatch(json: try JSONReader().read(patch))
        #expect {
            try parsed.apply(to: document)
        } throws: { error in
            guard case let .operationFailed(failedIndex, failedOp, _, _) = error as? JSONPatchError else { return false }
            return failedIndex == index && failedOp == op
        }
    }

    @Test(arguments: [
        #"{}"#, #"[1]"#, #"[{"path":"/a"}]"#, #"[{"op":"jump","path":"/a"}]"#, #"[{"op":"add","path":"/a"}]"#,
        #"[{"op":"move","path":"/a"}]"#, #"[{"op":"remove","path":"a"}]"#, #"[{"op":"remove","path":3}]"#,
    ])
    func malformedPatchesAreInvalid(patch: String) throws {
        #expect {
            try JSONPatch(json: try JSONReader().read(patch))
        } throws: { error in
            if case .invalidPatch = error as? JSONPatchError { return true }
            return false
        }
    }

    @Test func aFailedPatchLeavesTheInputUntouched() throws {
        let document: JSONValue = ["a": [1, 2]]
        let patch = try JSONPatch(json: try JSONReader().read(#"[{"op":"remove","path":"/a/0"},{"op":"test","path":"/a","value":[]}]"#))
        #expect(throws: JSONPatchError.self) { try patch.apply(to: document) }
        #expect(document == ["a": [1, 2]])
    }

    @Test func headerChangesAppearInTheRenderedPatch() throws {
        let a = ListDocument(id: "l", kind: .array, revision: 1, sections: [ListSection(id: "main")])
        var b = a
        b.revision = 2
        b.kind = .sections
        b.cells = ["T": "C"]
        let diff = ListDiff(from: a, to: b)
        #expect(diff.isEmpty)
        let patch = JSONPatch(diff: diff, from: a, to: b)
        #expect(patch.operations.map(\.name) == ["replace", "replace", "add"])
        #expect(try patch.apply(to: a.jsonValue) == b.jsonValue)
    }
}
