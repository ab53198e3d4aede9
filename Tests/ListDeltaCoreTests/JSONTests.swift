import Testing
@testable import ListDeltaCore

@Suite struct JSONTests {
    private let reader = JSONReader(maximumDepth: 16)

    @Test func readsAndWritesEveryKindOfValue() throws {
        let text = #"{"a":[1,-2.5,3e2,true,false,null],"b":"q\"\\\/\b\f\n\r\tÄ\u00e9\ud83c\udf70","c":{}}"#
        let value = try reader.read(text)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["a", "b", "c"])
        #expect(object["b"] == .string("q\"\\/\u{08}\u{0C}\n\r\tÄé🍰"))
        #expect(try reader.read(JSONWriter.bytes(of: value)) == value)
        #expect(JSONWriter.string(of: ["x": [1, 2.5, "\u{01}"]]) == #"{"x":[1,2.5,"\u0001"]}"#)
    }

    @Test func numbersKeepTheirLiteral() throws {
        let big = "123456789012345678901234567890"
        #expect(JSONWriter.string(of: try reader.read(big)) == big)
        #expect(try reader.read("1.0") == reader.read("1"))
        #expect(try reader.read("1") != reader.read("2"))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "+1", ".5", "1e", "tru", "nul", "\"abc", "\"\\x\"",
        "\"\u{01}\"", "{\"a\" 1}", "{1:2}", "[1 2]", "1 2", "\"\\ud800\"", "\"\\udc00x\"", "{\"a\":1,\"a\":2}", "NaN",
    ])
    func malformedTextIsRejected(text: String) {
        #expect(throws: JSONReadError.self) { try reader.read(text) }
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: JSONReadError.self) { try reader.read([0x22, 0xFF, 0xFE, 0x22]) }
    }

    @Test func depthIsBoundedAndTheErrorSaysWhere() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONReadError.tooDeep(limit: 16, pointer: JSONPointer(tokens: Array(repeating: "0", count: 16)))) {
            try reader.read(deep)
        }
        let object = #"{"a":{"b":[0,{"c":[[[[[[[[[[[[[[1]]]]]]]]]]]]]]}]}}"#
        let expected = try JSONPointer(parsing: "/a/b/1/c/0/0/0/0/0/0/0/0/0/0/0/0")
        #expect(throws: JSONReadError.tooDeep(limit: 16, pointer: expected)) {
            try reader.read(object)
        }
    }

    @Test func pointersEscapeAndParse() throws {
        let pointer = try JSONPointer(parsing: "/a~1b/c~0d/")
        #expect(pointer.tokens == ["a/b", "c~d", ""])
        #expect(pointer.description == "/a~1b/c~0d/")
        #expect(throws: JSONPointerError.self) { try JSONPointer(parsing: "a") }
        #expect(throws: JSONPointerError.self) { try JSONPointer(parsing: "/~2") }
        // Escapes are read and written by code point: a combining mark after them changes nothing.
        let marked = try JSONPointer(parsing: "/~0\u{301}/~1\u{301}x")
        #expect(marked.tokens == ["~\u{301}", "/\u{301}x"])
        #expect(marked.description == "/~0\u{301}/~1\u{301}x")
        // So is the leading "/": a mark or a modifier right after it starts the first token.
        #expect(try JSONPointer(parsing: "/\u{301}").tokens == ["\u{301}"])
        #expect(try JSONPointer(parsing: "/\u{1F3FB}7").tokens == ["\u{1F3FB}7"])
    }
}
