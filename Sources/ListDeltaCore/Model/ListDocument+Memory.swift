/// What documents hold on the heap, estimated from their shape, so that a cache bounded in bytes is bounded in
/// memory too.
///
/// Each heap block is charged as the allocator rounds it (16-byte granules, an 8-byte header, 32 bytes at
/// least); arrays by their capacity; strings of up to 15 UTF-8 bytes live inline and cost nothing.
public enum HeapFootprint {
    /// Bytes the allocator takes for a request of `bytes`.
    public static func block(_ bytes: Int) -> Int {
        max(32, (bytes + 8 + 15) & ~15)
    }

    /// A native array's buffer: its header, then room for `capacity` elements of `stride` bytes.
    public static func array(capacity: Int, stride: Int) -> Int {
        capacity == 0 ? 0 : block(32 + capacity * stride)
    }

    /// A byte array's buffer.
    public static func bytes(_ buffer: [UInt8]) -> Int {
        array(capacity: buffer.capacity, stride: 1)
    }

    /// A string's out-of-line storage (none for small strings).
    static func string(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : block(32 + count + 1)
    }

    static func string(_ string: String?) -> Int {
        string.map(Self.string) ?? 0
    }
}

extension JSONValue {
    /// The heap bytes this value holds, estimated (see `HeapFootprint`).
    /// - Complexity: O(*n*) in the size of the value.
    public var estimatedHeapBytes: Int {
        switch self {
        case .null, .bool: return 0
        case .number(let number): return HeapFootprint.string(number.literal)
        case .string(let text): return HeapFootprint.string(text)
        case .array(let elements):
            return HeapFootprint.array(capacity: elements.capacity, stride: MemoryLayout<JSONValue>.stride)
                + elements.reduce(0) { $0 + $1.estimatedHeapBytes }
        case .object(let object):
            return HeapFootprint.array(capacity: object.capacity, stride: MemoryLayout<JSONObject.Member>.stride)
                + object.entries.reduce(0) { $0 + HeapFootprint.string($1.key) + $1.value.estimatedHeapBytes }
        }
    }
}

extension ListItem {
    /// The heap bytes this item holds, estimated: its shared box, out-of-line strings and model.
    /// - Complexity: O(*m*) in the size of the model.
    public var estimatedHeapBytes: Int {
        let box = HeapFootprint.block(16 + MemoryLayout<String>.stride + 2 * MemoryLayout<String?>.stride + MemoryLayout<JSONValue>.stride)
        return box + HeapFootprint.string(id) + HeapFootprint.string(type) + HeapFootprint.string(cell) + model.estimatedHeapBytes
    }
}

extension ListDocument {
    /// The sample size: a document of fewer than twice this many items is measured item by item; a larger one
    /// from every (n / this)-th item, between this many and twice as many.
    static let measuredItems = 2_048

    /// The heap bytes this document holds, estimated: every item of a small document, an even sample of a
    /// large one's items (scaled to their number; see `measuredItems`), the arrays and the headers.
    ///
    /// Items a document shares with another revision (copies of one item) are charged to both: the estimate errs
    /// on the side of a smaller cache.
    /// - Complexity: O(min(*n*, 4,096)) items, each O(*m*) in its model.
    public var estimatedHeapBytes: Int {
        let bytes = estimatedHeapBytesOfArrays
        let itemCount = itemCount
        guard itemCount > 0 else { return bytes }
        let step = max(1, itemCount / Self.measuredItems)
        var measured = 0
        var sampled = 0
        var position = 0
        for section in sections {
            var index = (step - position % step) % step
            while index < section.items.count {
                measured += section.items[index].estimatedHeapBytes
                sampled += 1
                index += step
            }
            position += section.items.count
        }
        return bytes + (sampled == 0 ? 0 : measured * itemCount / sampled)
    }

    /// The heap bytes of the document's own arrays and headers, without what its items hold: what a document costs
    /// whose items are copies of items another value keeps alive (a view's document, whose items are its base's).
    /// - Complexity: O(*s*) for *s* sections.
    public var estimatedHeapBytesOfArrays: Int {
        var bytes = HeapFootprint.array(capacity: sections.capacity, stride: MemoryLayout<ListSection>.stride)
        for section in sections {
            bytes += HeapFootprint.string(section.id) + HeapFootprint.string(section.header.title)
                + HeapFootprint.string(section.header.indexTitle)
                + HeapFootprint.array(capacity: section.items.capacity, stride: MemoryLayout<ListItem>.stride)
        }
        for (type, cell) in cells ?? [:] { bytes += 64 + HeapFootprint.string(type) + HeapFootprint.string(cell) }
        return bytes
    }
}

extension ListDiff {
    /// The heap bytes this diff holds, estimated: its operation arrays, the items and sections it carries
    /// (items it shares with a document are charged to both), and the counts.
    /// - Complexity: O(*k*) in the size of the operations and the models they carry.
    public var estimatedHeapBytes: Int {
        func array<T>(_ elements: [T]) -> Int { HeapFootprint.array(capacity: elements.capacity, stride: MemoryLayout<T>.stride) }
        var bytes = HeapFootprint.string(listID) + array(fromCounts) + array(toCounts)
        bytes += array(sections.deleted) + array(sections.inserted) + array(sections.moved) + array(sections.updated)
        bytes += array(items.deleted) + array(items.inserted) + array(items.moved) + array(items.updated)
        for insertion in sections.inserted {
            bytes += array(insertion.section.items) + insertion.section.items.reduce(0) { $0 + $1.estimatedHeapBytes }
        }
        bytes += items.inserted.reduce(0) { $0 + $1.item.estimatedHeapBytes }
        bytes += items.updated.reduce(0) { $0 + $1.item.estimatedHeapBytes }
        return bytes
    }
}
