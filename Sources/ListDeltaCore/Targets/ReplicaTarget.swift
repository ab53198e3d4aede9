/// An in-memory copy of a list that performs batches exactly as API.md's normative procedure says.
///
/// Tests replay diffs through it (`apply(diff(a, b), a) == b`), and a Swift client can keep its own replica
/// beside a view. Every index is checked: a batch that does not fit throws and leaves the document unchanged.
public struct ReplicaTarget: ListUpdateTarget, Sendable {
    /// The document as the replica holds it.
    public var document: ListDocument

    private var deletedSections: [Int] = []
    private var insertedSections: [SectionInsertion] = []
    private var movedSections: [Move<Int>] = []
    private var deletedItems: [ItemPath] = []
    private var insertedItems: [ItemInsertion] = []
    private var movedItems: [Move<ItemPath>] = []

    /// Creates a replica holding `document` (pass it with `consume` to let batches change it in place).
    public init(document: consuming ListDocument) {
        self.document = document
    }

    public mutating func beginUpdates() {
        deletedSections = []
        insertedSections = []
        movedSections = []
        deletedItems = []
        insertedItems = []
        movedItems = []
    }

    public mutating func deleteSections(_ indexes: [Int]) { deletedSections += indexes }
    public mutating func insertSections(_ insertions: [SectionInsertion]) { insertedSections += insertions }
    public mutating func moveSection(from: Int, to: Int) { movedSections.append(Move(from: from, to: to)) }
    public mutating func deleteItems(at paths: [ItemPath]) { deletedItems += paths }
    public mutating func insertItems(_ insertions: [ItemInsertion]) { insertedItems += insertions }
    public mutating func moveItem(from: ItemPath, to: ItemPath) { movedItems.append(Move(from: from, to: to)) }

    /// Performs the batch (steps 1 to 3 of the normative procedure).
    /// - Complexity: O(*n* + *k*) for *n* items and *k* operations.
    public mutating func endUpdates() throws(DiffApplicationError) {
        // The batch owns the sections while it works, so a replica that is the only owner of its document changes
        // its item arrays in place (elements move; nothing is retained or released). Everything is checked
        // before anything moves; on an error the sections go back untouched.
        let sections = document.sections
        document.sections = []
        var batch = ReplicaBatch(old: sections)
        do {
            try batch.removeSections(deletedSections, moving: movedSections.map(\.from))
            try batch.removeItems(deletedItems, moving: movedItems.map(\.from))
            let newSections = try batch.placeSections(inserted: insertedSections, moved: movedSections)
            document.sections = try batch.placeItems(in: newSections, inserted: insertedItems, moved: movedItems)
        } catch {
            document.sections = batch.old
            throw error
        }
    }

    /// Step 4: replaces section headers at new indexes.
    public mutating func updateSectionHeaders(_ updates: [SectionUpdate]) throws(DiffApplicationError) {
        for update in updates {
            guard document.sections.indices.contains(update.at) else {
                throw DiffApplicationError("updated section \(update.at) is out of range")
            }
            guard document.sections[update.at].id == update.header.id else {
                throw DiffApplicationError("updated section \(update.at) is \"\(document.sections[update.at].id)\", not \"\(update.header.id)\"")
            }
            document.sections[update.at].header = update.header
        }
    }

    /// Step 4: replaces items at new paths.
    public mutating func reconfigureItems(_ updates: [ItemUpdate]) throws(DiffApplicationError) {
        for update in updates {
            let path = update.at
            guard document.sections.indices.contains(path.section),
                document.sections[path.section].items.indices.contains(path.item)
            else { throw DiffApplicationError("updated item \(path) is out of range") }
            guard document.sections[path.section].items[path.item].id == update.item.id else {
                throw DiffApplicationError("updated item \(path) is not \"\(update.item.id)\"")
            }
            document.sections[path.section].items[path.item] = update.item
        }
    }
}

/// The working state of one replica batch.
private struct ReplicaBatch {
    /// The old sections; a section's items are taken out when its new items are placed.
    var old: [ListSection]
    /// Old sections that leave their place (deleted or moved).
    var sectionLeaves: [Bool]
    var sectionDeleted: [Bool]
    /// For each old section with removals, the indexes that leave it (deleted or moved), ascending.
    var removed: [Int: [Int]] = [:]
    /// Items taken out to move, by old path.
    var moving: [ItemPath: ListItem] = [:]

    init(old: [ListSection]) {
        self.old = old
        sectionLeaves = Array(repeating: false, count: old.count)
        sectionDeleted = Array(repeating: false, count: old.count)
    }

    mutating func removeSections(_ deleted: [Int], moving moved: [Int]) throws(DiffApplicationError) {
        for index in deleted {
            guard old.indices.contains(index), !sectionLeaves[index] else {
                throw DiffApplicationError("deleted section \(index) is out of range or named twice")
            }
            sectionLeaves[index] = true
            sectionDeleted[index] = true
        }
        for index in moved {
            guard old.indices.contains(index), !sectionLeaves[index] else {
                throw DiffApplicationError("moved section \(index) is out of range, deleted or moved twice")
            }
            sectionLeaves[index] = true
        }
    }

    mutating func removeItems(_ deleted: [ItemPath], moving moved: [ItemPath]) throws(DiffApplicationError) {
        var removed: [Int: Set<Int>] = [:]
        for (path, isMove) in deleted.map({ ($0, false) }) + moved.map({ ($0, true) }) {
            guard old.indices.contains(path.section), old[path.section].items.indices.contains(path.item) else {
                throw DiffApplicationError("item \(path) is out of range")
            }
            guard !sectionDeleted[path.section] else {
                throw DiffApplicationError("item \(path) lies in a deleted section")
            }
            guard removed[path.section, default: []].insert(path.item).inserted else {
                throw DiffApplicationError("item \(path) is deleted or moved twice")
            }
            if isMove { moving[path] = old[path.section].items[path.item] }
        }
        self.removed = removed.mapValues { $0.sorted() }
    }

    /// Step 2: the new sections, each either inserted (whole) or an old one (by index, items not yet placed).
    func placeSections(inserted: [SectionInsertion], moved: [Move<Int>]) throws(DiffApplicationError) -> [NewSection] {
        let count = old.count - sectionDeleted.filter { $0 }.count + inserted.count
        var slots = [NewSection?](repeating: nil, count: count)
        for insertion in inserted {
            guard slots.indices.contains(insertion.at), slots[insertion.at] == nil else {
                throw DiffApplicationError("inserted section \(insertion.at) is out of range or taken twice")
            }
            slots[insertion.at] = .inserted(insertion.section)
        }
        for move in moved {
            guard slots.indices.contains(move.to), slots[move.to] == nil else {
                throw DiffApplicationError("moved section target \(move.to) is out of range or taken twice")
            }
            slots[move.to] = .old(move.from)
        }
        var free = slots.indices.filter { slots[$0] == nil }.makeIterator()
        for index in old.indices where !sectionLeaves[index] {
            guard let slot = free.next() else { throw DiffApplicationError("more sections than the new document holds") }
            slots[slot] = .old(index)
        }
        guard free.next() == nil else { throw DiffApplicationError("fewer sections than the new document holds") }
        return slots.map { $0! }
    }

    /// Step 3: fills each surviving section with inserted, moved and remaining items.
    mutating func placeItems(in sections: [NewSection], inserted: [ItemInsertion], moved: [Move<ItemPath>]) throws(DiffApplicationError) -> [ListSection] {
        var arrivals: [Int: [(Int, ListItem)]] = [:]
        for insertion in inserted { arrivals[insertion.at.section, default: []].append((insertion.at.item, insertion.item)) }
        for move in moved {
            guard let item = moving[move.from] else { throw DiffApplicationError("moved item \(move.from) was not taken out") }
            arrivals[move.to.section, default: []].append((move.to.item, item))
        }
        // Check every section before changing any.
        var ordered: [Int: [(Int, ListItem)]] = [:]
        for (index, section) in sections.enumerated() {
            guard let incoming = arrivals[index] else { continue }
            guard case .old(let oldIndex) = section else { throw DiffApplicationError("items arrive in inserted section \(index)") }
            let sorted = incoming.sorted { $0.0 < $1.0 }
            let total = old[oldIndex].items.count - (removed[oldIndex]?.count ?? 0) + sorted.count
            for (offset, arrival) in sorted.enumerated() where arrival.0 >= total || (offset > 0 && sorted[offset - 1].0 == arrival.0) {
                throw DiffApplicationError("item target [\(index), \(arrival.0)] is out of range or taken twice")
            }
            ordered[index] = sorted
        }
        var result: [ListSection] = []
        result.reserveCapacity(sections.count)
        for (index, section) in sections.enumerated() {
            switch section {
            case .inserted(let whole):
                result.append(whole)
            case .old(let oldIndex):
                result.append(ListSection(header: old[oldIndex].header, items: takeItems(of: oldIndex, placing: ordered[index] ?? [])))
            }
        }
        return result
    }
}

extension ReplicaBatch {
    /// Takes an old section's items out, removes those that leave and inserts the arrivals (checked, ascending).
    /// In place when the batch is their only owner: elements are moved, never copied.
    /// - Complexity: O(*m* · min(*a*, 32) + *a* log *a*) for *m* items and *a* arrivals.
    fileprivate mutating func takeItems(of oldIndex: Int, placing arrivals: [(Int, ListItem)]) -> [ListItem] {
        var items: [ListItem] = []
        swap(&items, &old[oldIndex].items)
        if let leaving = removed[oldIndex], !leaving.isEmpty {
            // Compaction by swaps through the buffer: swaps move elements, where removeSubranges copies them.
            let kept = items.withUnsafeMutableBufferPointer { buffer -> Int in
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
            items.removeLast(items.count - kept)
        }
        if arrivals.count <= Self.insertionsInPlace {
            for (position, item) in arrivals { items.insert(item, at: position) }
            return items
        }
        // Many arrivals: one merging pass (copies the items) rather than a shift of the array per arrival.
        var merged: [ListItem] = []
        merged.reserveCapacity(items.count + arrivals.count)
        var nextArrival = 0
        var source = 0
        for position in 0..<(items.count + arrivals.count) {
            if nextArrival < arrivals.count, arrivals[nextArrival].0 == position {
                merged.append(arrivals[nextArrival].1)
                nextArrival += 1
            } else {
                merged.append(items[source])
                source += 1
            }
        }
        return merged
    }

    /// Up to this many arrivals a section's array is shifted in place per arrival; beyond, it is merged anew.
    private static let insertionsInPlace = 32
}

/// A section of the new document while a batch is placed.
private enum NewSection: Equatable {
    case inserted(ListSection)
    case old(Int)
}

extension ListDiff {
    /// Checks the diff's `counts.from` against what a client shows, before it hands the diff to a view.
    /// - Throws: `DiffApplicationError` when they differ.
    public func check(against document: ListDocument) throws(DiffApplicationError) {
        guard fromCounts == document.sectionCounts else {
            throw DiffApplicationError("counts.from \(fromCounts) differ from the document's \(document.sectionCounts)")
        }
    }
}
