extension ListDiff {
    /// The diff that undoes this one: from this diff's `to` back to `old`, the document it was computed from.
    ///
    /// Applying it to the document this diff leads to gives `old` again. It is built from this diff and the
    /// items and headers `old` held where this diff deletes or changes them, without comparing the documents:
    /// deletions become insertions (with their old content), insertions deletions, moves go back, and updates
    /// restore the old content at the old position. Stored beside a revision, it lets a server rebuild older
    /// revisions backwards from the newest document.
    ///
    /// - Parameter old: The document this diff starts from (`from`).
    /// - Returns: The inverse diff, from `to` to `from`.
    /// - Throws: `DiffApplicationError` when this diff does not fit `old`.
    /// - Complexity: O(*s* + *k* log *k*) for *s* sections and *k* operations.
    public func inverted(from old: ListDocument) throws(DiffApplicationError) -> ListDiff {
        try check(against: old)
        var inverse = ListDiff(listID: listID, from: to, to: from, fromCounts: toCounts, toCounts: fromCounts)
        let oldIndexByID = Dictionary(old.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })

        inverse.sections.deleted = sections.inserted.map(\.at)
        inverse.sections.inserted = try sections.deleted.map { (index) throws(DiffApplicationError) in
            guard old.sections.indices.contains(index) else { throw DiffApplicationError("deleted section \(index) is out of range") }
            return SectionInsertion(at: index, section: old.sections[index])
        }
        inverse.sections.moved = sections.moved.map { Move(from: $0.to, to: $0.from) }.sorted { $0.to < $1.to }
        inverse.sections.updated = try sections.updated.map { (update) throws(DiffApplicationError) in
            guard let index = oldIndexByID[update.header.id] else {
                throw DiffApplicationError("updated section \"\(update.header.id)\" is not in the old document")
            }
            return SectionUpdate(at: index, header: old.sections[index].header)
        }.sorted { $0.at < $1.at }

        inverse.items.deleted = items.inserted.map(\.at)
        inverse.items.inserted = try items.deleted.map { (path) throws(DiffApplicationError) in
            ItemInsertion(at: path, item: try Self.item(at: path, in: old))
        }
        inverse.items.moved = items.moved.map { Move(from: $0.to, to: $0.from) }.sorted { $0.to < $1.to }
        let oldPaths = try oldPathsOfUpdates(oldIndexByID: oldIndexByID, newSectionIDs: newSectionIDs(old: old))
        inverse.items.updated = try zip(items.updated, oldPaths).map { (update, path) throws(DiffApplicationError) in
            let item = try Self.item(at: path, in: old)
            guard item.id == update.item.id else {
                throw DiffApplicationError("updated item \"\(update.item.id)\" is not at \(path) in the old document")
            }
            return ItemUpdate(at: path, item: item)
        }.sorted { $0.at < $1.at }
        return inverse
    }

    private static func item(at path: ItemPath, in document: ListDocument) throws(DiffApplicationError) -> ListItem {
        guard document.sections.indices.contains(path.section), document.sections[path.section].items.indices.contains(path.item) else {
            throw DiffApplicationError("item \(path) is out of range in the old document")
        }
        return document.sections[path.section].items[path.item]
    }

    /// The id of each section of the new document, from the old sections and the section operations.
    private func newSectionIDs(old: ListDocument) throws(DiffApplicationError) -> [String] {
        var slots = [String?](repeating: nil, count: toCounts.count)
        for insertion in sections.inserted where slots.indices.contains(insertion.at) { slots[insertion.at] = insertion.section.id }
        var leaving = Set(sections.deleted)
        for move in sections.moved {
            guard slots.indices.contains(move.to), old.sections.indices.contains(move.from) else {
                throw DiffApplicationError("moved section \(move.from) to \(move.to) is out of range")
            }
            slots[move.to] = old.sections[move.from].id
            leaving.insert(move.from)
        }
        var free = slots.indices.filter { slots[$0] == nil }.makeIterator()
        for (index, section) in old.sections.enumerated() where !leaving.contains(index) {
            guard let slot = free.next() else { throw DiffApplicationError("more sections than the new document holds") }
            slots[slot] = section.id
        }
        return try slots.map { (id) throws(DiffApplicationError) in
            guard let id else { throw DiffApplicationError("fewer sections than the new document holds") }
            return id
        }
    }

    /// Where each updated item was in the old document: a moved item's move says it; an item that stayed in its
    /// section kept its rank among the items that neither left nor arrived.
    private func oldPathsOfUpdates(oldIndexByID: [String: Int], newSectionIDs: [String]) throws(DiffApplicationError) -> [ItemPath] {
        var sourceOfTarget: [ItemPath: ItemPath] = [:]
        for move in items.moved { sourceOfTarget[move.to] = move.from }
        var arrivals: [Int: [Int]] = [:]
        for insertion in items.inserted { arrivals[insertion.at.section, default: []].append(insertion.at.item) }
        for move in items.moved { arrivals[move.to.section, default: []].append(move.to.item) }
        var leavers: [Int: [Int]] = [:]
        for path in items.deleted { leavers[path.section, default: []].append(path.item) }
        for move in items.moved { leavers[move.from.section, default: []].append(move.from.item) }
        arrivals = arrivals.mapValues { $0.sorted() }
        leavers = leavers.mapValues { $0.sorted() }
        return try items.updated.map { (update) throws(DiffApplicationError) in
            if let source = sourceOfTarget[update.at] { return source }
            guard newSectionIDs.indices.contains(update.at.section), let oldSection = oldIndexByID[newSectionIDs[update.at.section]] else {
                throw DiffApplicationError("updated item \(update.at) lies in no surviving section")
            }
            // Its rank among the stayers of the new section, then the old position holding that rank.
            var position = update.at.item - Self.countBelow(update.at.item, in: arrivals[update.at.section] ?? [])
            for leaver in leavers[oldSection] ?? [] {
                guard leaver <= position else { break }
                position += 1
            }
            return ItemPath(section: oldSection, item: position)
        }
    }

    /// How many of `sorted` are below `value`.
    private static func countBelow(_ value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
