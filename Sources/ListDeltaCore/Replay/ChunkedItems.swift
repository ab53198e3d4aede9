/// A section's items kept in chunks of a few hundred, so that inserting or removing one item moves at most a
/// chunk's worth of references instead of the whole section.
///
/// This is what makes replaying hundreds of small diffs on a 100,000-item section cheap: each diff costs
/// O(*k* · (*c* + *n*/*c*)) for *k* operations and chunks of *c* items, not O(*n*).
struct ChunkedItems: ReplicaItems {
    /// A chunk is split when it grows past twice this.
    static let chunkSize = 256

    private var chunks: [[ListItem]]
    /// The size of each chunk, scanned to find a position (scanning `chunks` itself would retain every chunk).
    private var sizes: [Int]
    private(set) var count: Int

    init(_ items: [ListItem]) {
        chunks = stride(from: 0, to: items.count, by: Self.chunkSize).map {
            Array(items[$0..<Swift.min($0 + Self.chunkSize, items.count)])
        }
        sizes = chunks.map(\.count)
        count = items.count
    }

    /// The items as one array.
    /// - Complexity: O(*n*).
    var array: [ListItem] {
        guard chunks.count != 1 else { return chunks[0] }
        var items: [ListItem] = []
        items.reserveCapacity(count)
        for chunk in chunks { items += chunk }
        return items
    }

    /// The chunk holding `position` and the offset in it; `position == count` is the end of the last chunk.
    /// - Complexity: O(*n*/*c*).
    private func locate(_ position: Int) -> (chunk: Int, offset: Int) {
        sizes.withUnsafeBufferPointer { sizes in
            var remaining = position
            for index in sizes.indices {
                if remaining < sizes[index] { return (index, remaining) }
                remaining -= sizes[index]
            }
            return (sizes.count - 1, sizes[sizes.count - 1])
        }
    }

    subscript(position: Int) -> ListItem {
        get {
            let (chunk, offset) = locate(position)
            return chunks[chunk][offset]
        }
        set {
            let (chunk, offset) = locate(position)
            chunks[chunk][offset] = newValue
        }
    }

    mutating func remove(at position: Int) {
        let (chunk, offset) = locate(position)
        chunks[chunk].remove(at: offset)
        sizes[chunk] -= 1
        if sizes[chunk] == 0 {
            chunks.remove(at: chunk)
            sizes.remove(at: chunk)
        }
        count -= 1
    }

    mutating func insert(_ item: ListItem, at position: Int) {
        guard !chunks.isEmpty else {
            chunks = [[item]]
            sizes = [1]
            count = 1
            return
        }
        let (chunk, offset) = locate(position)
        chunks[chunk].insert(item, at: offset)
        sizes[chunk] += 1
        count += 1
        if sizes[chunk] > 2 * Self.chunkSize {
            let tail = Array(chunks[chunk][Self.chunkSize...])
            chunks[chunk].removeLast(tail.count)
            chunks.insert(tail, at: chunk + 1)
            sizes[chunk] = Self.chunkSize
            sizes.insert(tail.count, at: chunk + 1)
        }
    }

    /// Removes from the back (so earlier positions stay valid), then inserts from the front (so each arrival's
    /// position counts the arrivals before it).
    /// - Complexity: O((*l* + *a*) · (*c* + *n*/*c*)) for *l* leavers and *a* arrivals.
    mutating func replace(leaving: [Int], arrivals: [(Int, ListItem)]) {
        for position in leaving.reversed() { remove(at: position) }
        for (position, item) in arrivals { insert(item, at: position) }
    }
}

/// A section whose items are chunked.
struct ChunkedSection: ReplicaSection {
    var header: SectionHeader
    var items: ChunkedItems
}
