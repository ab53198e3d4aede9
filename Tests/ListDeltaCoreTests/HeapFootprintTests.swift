import Testing
@testable import ListDeltaCore

/// `estimatedHeapBytes`, which the service's document cache charges (`listdelta-bench memory` compares it with
/// what a process really grows by).
@Suite struct HeapFootprintTests {
    @Test func smallStringsAndScalarsLiveInline() {
        #expect(JSONValue.null.estimatedHeapBytes == 0)
        #expect(JSONValue.string("fifteen bytes!!").estimatedHeapBytes == 0)
        #expect(JSONValue.number(JSONNumber(123456)).estimatedHeapBytes == 0)
        // 16 bytes and more are stored out of line: a header, the bytes and a terminator, rounded by the allocator.
        #expect(JSONValue.string("sixteen bytes!!!").estimatedHeapBytes == 64)
    }

    @Test func containersChargeTheirBuffersAndTheirContents() {
        let long = String(repeating: "x", count: 100)
        let object: JSONValue = ["text": .string(long), "n": 1]
        let members = HeapFootprint.array(capacity: object.objectValue!.capacity, stride: MemoryLayout<JSONObject.Member>.stride)
        #expect(members >= 32 + 2 * MemoryLayout<JSONObject.Member>.stride)
        #expect(object.estimatedHeapBytes == members + JSONValue.string(long).estimatedHeapBytes)
        let array: JSONValue = [object, object]
        #expect(array.estimatedHeapBytes > 2 * object.estimatedHeapBytes)
    }

    @Test func aLargeDocumentIsEstimatedFromASampleOfItsItems() {
        // Items of one shape: the sample's average is every item's cost, so the estimate is exact.
        func items(_ count: Int) -> [ListItem] {
            (0..<count).map { ListItem(id: "item-\($0)", type: "Text", model: ["text": .string("item \($0)"), "v": 1]) }
        }
        let large = ListDocument(id: "l", kind: .sections, revision: 1, sections: [
            ListSection(id: "a", items: items(30_000)), ListSection(id: "b", items: items(7_001)),
        ])
        let perItem = items(1)[0].estimatedHeapBytes
        let arrays = large.sections.reduce(0) { $0 + HeapFootprint.array(capacity: $1.items.capacity, stride: MemoryLayout<ListItem>.stride) }
            + HeapFootprint.array(capacity: large.sections.capacity, stride: MemoryLayout<ListSection>.stride)
        #expect(large.estimatedHeapBytes == arrays + 37_001 * perItem)
        // The box, the model's one buffer: the item costs more than its fields and less than a kilobyte.
        #expect(perItem > MemoryLayout<JSONValue>.stride + 3 * MemoryLayout<String>.stride)
        #expect(perItem < 1_024)
    }

    @Test func sharedItemsAreChargedToEveryDocumentThatHoldsThem() {
        let item = ListItem(id: "a", model: ["text": .string(String(repeating: "y", count: 40))])
        let one = ListDocument(id: "l", revision: 1, sections: [ListSection(id: "s", items: [item])])
        let two = ListDocument(id: "l", revision: 2, sections: [ListSection(id: "s", items: [item, ListItem(id: "b")])])
        #expect(two.estimatedHeapBytes > one.estimatedHeapBytes)
    }
}
