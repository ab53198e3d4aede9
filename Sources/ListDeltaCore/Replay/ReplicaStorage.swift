/// The items of one section as a replica batch edits them: a plain array (``ReplicaTarget``) or chunks
/// (``DiffReplayer``, where one batch must cost what it changes, not what the section holds).
protocol ReplicaItems {
    /// Items in order.
    init(_ items: [ListItem])
    /// The number of items.
    var count: Int { get }
    /// The item at `position` (checked by the caller).
    subscript(position: Int) -> ListItem { get set }
    /// Removes the items at `leaving` (old positions, ascending, distinct, in range), then inserts `arrivals` at
    /// their new positions (ascending, distinct, each at most the count reached so far).
    mutating func replace(leaving: [Int], arrivals: [(Int, ListItem)])
}

/// A section as a replica batch edits it: a header and its items.
protocol ReplicaSection {
    associatedtype Items: ReplicaItems
    /// The section as the storage holds it.
    init(header: SectionHeader, items: Items)
    /// The section's header.
    var header: SectionHeader { get set }
    /// The section's items.
    var items: Items { get set }
}

extension ReplicaSection {
    /// A whole section, as a diff inserts it.
    init(_ section: ListSection) {
        self.init(header: section.header, items: Items(section.items))
    }
}

extension ListSection: ReplicaSection {}

extension Array: ReplicaItems where Element == ListItem {
    /// Compacts the leavers away and inserts the arrivals: in place when the array is the only owner of its
    /// buffer (elements are moved, never copied).
    /// - Complexity: O(*m* · min(*a*, 32) + *a*) for *m* items and *a* arrivals.
    mutating func replace(leaving: [Int], arrivals: [(Int, ListItem)]) {
        if !leaving.isEmpty {
            // Compaction by swaps through the buffer: swaps move elements, where removeSubranges copies them.
            let kept = withUnsafeMutableBufferPointer { buffer -> Int in
                var write = 0
                var nextLeaving = 0
                for read in 0..<buffer.count {
                    if nextLeaving < leaving.count, leaving[nextLeaving] == read {
                        nextLeaving += 1
                        continue
                    }
                    if read != write { buffer.swapAt(write, read) }
                    write += 1
                }
                return write
            }
            removeLast(count - kept)
        }
        if arrivals.count <= 32 {
            for (position, item) in arrivals { insert(item, at: position) }
            return
        }
        // Many arrivals: one merging pass (copies the items) rather than a shift of the array per arrival.
        var merged: [ListItem] = []
        merged.reserveCapacity(count + arrivals.count)
        var nextArrival = 0
        var source = 0
        for position in 0..<(count + arrivals.count) {
            if nextArrival < arrivals.count, arrivals[nextArrival].0 == position {
                merged.append(arrivals[nextArrival].1)
                nextArrival += 1
            } else {
                merged.append(self[source])
                source += 1
            }
        }
        self = merged
    }
}
