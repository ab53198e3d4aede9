/// The operations of one batch, as a target records them between `beginUpdates()` and `endUpdates()`.
struct RecordedBatch {
    var deletedSections: [Int] = []
    var insertedSections: [SectionInsertion] = []
    var movedSections: [Move<Int>] = []
    var deletedItems: [ItemPath] = []
    var insertedItems: [ItemInsertion] = []
    var movedItems: [Move<ItemPath>] = []
}

extension RecordedBatch {
    /// The batch part (steps 1 to 3) of a diff.
    init(_ diff: ListDiff) {
        self.init(
            deletedSections: diff.sections.deleted, insertedSections: diff.sections.inserted, movedSections: diff.sections.moved,
            deletedItems: diff.items.deleted, insertedItems: diff.items.inserted, movedItems: diff.items.moved)
    }

    /// Performs steps 1 to 3 of the normative procedure on `sections`. Everything is checked before anything
    /// moves; on an error `sections` is left as it was.
    ///
    /// The batch owns the sections while it works, so sections that are the only owners of their items change
    /// them in place.
    /// - Complexity: O(*s* + *k* log *k*) plus what the item storage's `replace` costs per touched section.
    func perform<Section: ReplicaSection>(on sections: inout [Section]) throws(DiffApplicationError) {
        var batch = ReplicaBatch(old: sections)
        sections = []
        do {
            try batch.removeSections(deletedSections, moving: movedSections.map(\.from))
            try batch.removeItems(deletedItems, moving: movedItems.map(\.from))
            let placed = try batch.placeSections(inserted: insertedSections, moved: movedSections)
            sections = try batch.placeItems(in: placed, inserted: insertedItems, moved: movedItems)
        } catch {
            sections = batch.old
            throw error
        }
    }
}

/// The working state of one replica batch.
private struct ReplicaBatch<Section: ReplicaSection> {
    /// The old sections; a section's items are taken out when its new items are placed.
    var old: [Section]
    /// Old sections that leave their place (deleted or moved).
    var sectionLeaves: [Bool]
    var sectionDeleted: [Bool]
    /// For each old section with removals, the indexes that leave it (deleted or moved), ascending.
    var removed: [Int: [Int]] = [:]
    /// Items taken out to move, by old path.
    var moving: [ItemPath: ListItem] = [:]

    init(old: [Section]) {
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
            guard old.indices.contains(path.section), path.item >= 0, path.item < old[path.section].items.count else {
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
    mutating func placeItems(in sections: [NewSection], inserted: [ItemInsertion], moved: [Move<ItemPath>]) throws(DiffApplicationError) -> [Section] {
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
            for (offset, arrival) in sorted.enumerated() where arrival.0 < 0 || arrival.0 >= total || (offset > 0 && sorted[offset - 1].0 == arrival.0) {
                throw DiffApplicationError("item target [\(index), \(arrival.0)] is out of range or taken twice")
            }
            ordered[index] = sorted
        }
        var result: [Section] = []
        result.reserveCapacity(sections.count)
        for (index, section) in sections.enumerated() {
            switch section {
            case .inserted(let whole):
                result.append(Section(whole))
            case .old(let oldIndex):
                // Taken out of `old`, so that the storage is the only owner of its items and changes them in place.
                var items = Section.Items([])
                swap(&items, &old[oldIndex].items)
                items.replace(leaving: removed[oldIndex] ?? [], arrivals: ordered[index] ?? [])
                result.append(Section(header: old[oldIndex].header, items: items))
            }
        }
        return result
    }
}

/// A section of the new document while a batch is placed.
private enum NewSection {
    case inserted(ListSection)
    case old(Int)
}
