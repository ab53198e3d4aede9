import Testing
@testable import ListDeltaKit

@Suite struct SSEParserTests {
    func parse(_ chunks: [String]) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return try chunks.flatMap { try parser.feed(Array($0.utf8)) }
    }

    @Test func eventsWithNamesIdsAndCommentsInAnyLineEnding() throws {
        let events = try parse([": keep-alive\n\nevent: diff\r\nid: 7\rdata: {\"a\":1}\r\n\r\ndata:x\ndata: y\n\n"])
        #expect(events == [
            ServerSentEvent(name: "diff", data: "{\"a\":1}", id: "7"),
            ServerSentEvent(name: "message", data: "x\ny", id: "7"),
        ])
    }

    @Test func anEventSplitAtEveryByteGivesTheSameEvents() throws {
        let text = "event: reset\r\ndata: {\"current\":0}\r\n\r\nid: 3\ndata: a\n\n"
        let whole = try parse([text])
        let bytewise = try parse(text.map { String($0) })
        #expect(whole == bytewise)
        #expect(whole.count == 2)
        // A CR and its LF in separate chunks are one line end, not two.
        #expect(try parse(["data: a\r", "\n\r", "\n"]) == [ServerSentEvent(data: "a")])
    }

    @Test func eventsWithoutDataAreNotDispatchedAndAnIDWithNULIsIgnored() throws {
        #expect(try parse(["event: diff\n\n", "id: 1\u{0}2\ndata: z\n\n"]) == [ServerSentEvent(data: "z", id: nil)])
    }

    @Test func anEventLargerThanTheBoundThrows() {
        var parser = ServerSentEventParser(maximumEventBytes: 16)
        #expect(throws: EventTooLarge(limit: 16)) { try parser.feed(Array("data: 0123456789abcdef\n\n".utf8)) }
    }
}
