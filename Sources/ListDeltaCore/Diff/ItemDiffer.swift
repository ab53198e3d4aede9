/// The item half of a diff.
///
/// Matching items by id is the costly part of a diff, and in real edits most items keep their order, so it
/// runs in two passes: first each surviving section's new items are matched against the same section's old
/// items by a forward cursor with a short look-ahead (no hashing, sequential memory); then only the items left
/// over, both sides, go through a hash table. A list with *k* changed items hashes O(*k*) ids, not O(*n*).
struct ItemDiffer {
    /// How many old items past the cursor the first pass looks at before it defers an item to the hash table.
    private static let lookAhead = 8
    /// How many new items in a row the cursor must miss before it scans further ahead (see `matchInOrder`).
    private static let resyncAfter = 4

    private let old: [ListSection]
    private let new: [ListSection]
    private let matching: SectionMatching
    /// Flat index of the first item of each old section.
    private var oldStarts: [Int32] = []
    /// For each old item (flat), whether a new item in a surviving section matched it.
    private var oldMatched: [Bool] = []
    /// For each new section, the flat old index of each of its items, or -1 (empty for inserted sections).
    private var sources: [[Int32]] = []
    /// How many new items in surviving sections the first pass left to the hash table (after `fill`).
    private(set) var hashedItems = 0

    init(old: [ListSection], new: [ListSection], matching: SectionMatching) {
        self.old = old
        self.new = new
        self.matching = matching
    }

    /// Fills the item operations.
    /// - Complexity: O(*n* + *m* log *m*) for *n* items and *m* items matched inside their section.
    mutating func fill(_ changes: inout ItemChanges) {
        var oldCount = 0
        oldStarts.reserveCapacity(old.count)
        for section in old {
            oldStarts.append(Int32(oldCount))
            oldCount += section.items.count
        }
        oldMatched = [Bool](repeating: false, count: oldCount)
        sources = Array(repeating: [], count: new.count)
        var deferred: [ItemPath] = []
        for newSection in new.indices where matching.newToOld[newSection] >= 0 {
            matchInOrder(newSection: newSection, deferring: &deferred)
        }
        hashedItems = deferred.count
        if !deferred.isEmpty { matchByHash(deferred) }
        for newSection in new.indices where matching.newToOld[newSection] >= 0 {
            emit(newSection: newSection, into: &changes)
        }
        for (oldSection, section) in old.enumerated() where matching.oldToNew[oldSection] >= 0 {
            let start = Int(oldStarts[oldSection])
            for index in section.items.indices where !oldMatched[start + index] {
                changes.deleted.append(ItemPath(section: oldSection, item: index))
            }
        }
    }

    /// First pass: a forward cursor over the old section with the same id.
    ///
    /// The cursor looks `lookAhead` old items ahead. A run of more removed old items than that (a block deleted
    /// or moved away) would leave it behind for good, and every later item would go to the hash table; so after
    /// `resyncAfter` new items in a row that it did not find, it also scans further ahead for the current one,
    /// twice as far after each further miss. Those scans read at most one old item per old item of the section
    /// in all, which keeps the pass O(*n*) when nothing is in order (a shuffle).
    private mutating func matchInOrder(newSection: Int, deferring deferred: inout [ItemPath]) {
        let oldSection = Int(matching.newToOld[newSection])
        let start = oldStarts[oldSection]
        var found = [Int32](repeating: -1, count: new[newSection].items.count)
        new[newSection].items.withUnsafeBufferPointer { newItems in
            old[oldSection].items.withUnsafeBufferPointer { oldItems in
                var cursor = 0
                var misses = 0
                var scanBudget = oldItems.count
                for index in newItems.indices {
                    let id = newItems[index].id
                    let limit = min(oldItems.count, cursor + Self.lookAhead)
                    var probe = cursor
                    while probe < limit, oldItems[probe].id != id { probe += 1 }
                    if probe == limit, misses >= Self.resyncAfter, scanBudget > 0 {
                        let reach = min(oldItems.count, limit + min(scanBudget, 1 << min(misses, 30)))
                        while probe < reach, oldItems[probe].id != id { probe += 1 }
                        scanBudget -= probe - limit
                        if probe == reach { probe = oldItems.count }
                    } else if probe == limit {
                        probe = oldItems.count
                    }
                    if probe < oldItems.count {
                        found[index] = start + Int32(probe)
                        oldMatched[Int(start) + probe] = true
                        cursor = probe + 1
                        misses = 0
                    } else {
                        misses += 1
                        deferred.append(ItemPath(section: newSection, item: index))
                    }
                }
            }
        }
        sources[newSection] = found
    }

    /// Second pass: the items the cursor did not find, through a hash table of the old items left over.
    private mutating func matchByHash(_ deferred: [ItemPath]) {
        var table = IDTable(capacity: oldMatched.count - oldMatched.lazy.filter { $0 }.count)
        for (oldSection, section) in old.enumerated() {
            let start = Int(oldStarts[oldSection])
            section.items.withUnsafeBufferPointer { items in
                for index in items.indices where !oldMatched[start + index] {
                    table.insert(hash: IDTable.hash(items[index].id), Int32(start + index))
                }
            }
        }
        for path in deferred {
            let id = new[path.section].items[path.item].id
            let flat = table.find(hash: IDTable.hash(id)) { oldID(ofFlat: $0) == id }
            guard flat >= 0 else { continue }
            sources[path.section][path.item] = flat
            oldMatched[Int(flat)] = true
        }
    }

    /// The id of the old item at flat index `flat`.
    private func oldID(ofFlat flat: Int32) -> String {
        let section = old.count == 1 ? 0 : oldSection(ofFlat: flat)
        return old[section].items[Int(flat - oldStarts[section])].id
    }

    /// The old section holding flat index `flat`: the last section starting at or before it (empty sections
    /// share their start with the next one, so the last such section is the one that holds the item).
    private func oldSection(ofFlat flat: Int32) -> Int {
        var low = 0
        var high = oldStarts.count - 1
        while low < high {
            let middle = (low + high + 1) >> 1
            if oldStarts[middle] <= flat { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Compares content in place: copying the items would retain (and so touch) every model.
    @inline(__always)
    private static func contentDiffers(_ new: UnsafePointer<ListItem>, _ old: UnsafePointer<ListItem>) -> Bool {
        new.pointee.hasDifferentContent(from: old.pointee)
    }

    /// Emits the inserts, moves and updates of one surviving section, in new order.
    private mutating func emit(newSection: Int, into changes: inout ItemChanges) {
        let oldSection = Int(matching.newToOld[newSection])
        let oldStart = oldStarts[oldSection]
        let oldEnd = oldStart + Int32(old[oldSection].items.count)
        let found = sources[newSection]
        let staying = LongestIncreasingSubsequence.members(of: found, within: oldStart..<oldEnd)
        // Items are read in place through buffers: copying them would retain every model.
        new[newSection].items.withUnsafeBufferPointer { items in
            old[oldSection].items.withUnsafeBufferPointer { sameSectionItems in
                for index in items.indices {
                    let at = ItemPath(section: newSection, item: index)
                    let flat = found[index]
                    if flat < 0 {
                        changes.inserted.append(ItemInsertion(at: at, item: items[index]))
                        continue
                    }
                    if flat >= oldStart && flat < oldEnd {
                        let fromIndex = Int(flat - oldStart)
                        if !staying[index] {
                            changes.moved.append(Move(from: ItemPath(section: oldSection, item: fromIndex), to: at))
                        }
                        if Self.contentDiffers(items.baseAddress! + index, sameSectionItems.baseAddress! + fromIndex) {
                            changes.updated.append(ItemUpdate(at: at, item: items[index]))
                        }
                        continue
                    }
                    let fromSection = self.oldSection(ofFlat: flat)
                    let fromIndex = Int(flat - oldStarts[fromSection])
                    if matching.oldToNew[fromSection] < 0 {
                        // It leaves a deleted section: for UIKit it is a new item here, and nothing is deleted.
                        changes.inserted.append(ItemInsertion(at: at, item: items[index]))
                        continue
                    }
                    changes.moved.append(Move(from: ItemPath(section: fromSection, item: fromIndex), to: at))
                    let differs = old[fromSection].items.withUnsafeBufferPointer { oldItems in
                        Self.contentDiffers(items.baseAddress! + index, oldItems.baseAddress! + fromIndex)
                    }
                    if differs {
                        changes.updated.append(ItemUpdate(at: at, item: items[index]))
                    }
                }
            }
        }
    }
}
