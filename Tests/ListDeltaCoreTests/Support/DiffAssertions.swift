import Testing
@testable import ListDeltaCore

/// Checks every rule of docs/api.md (The batch diff, Guarantees) on `diff` between `old` and `new`, and that it replays.
func expectExactDiff(_ diff: ListDiff, from old: ListDocument, to new: ListDocument, sourceLocation: SourceLocation = #_sourceLocation) {
    // Replays through the replica target.
    do {
        let applied = try diff.apply(to: old)
        #expect(applied.sections == new.sections, "replica replay differs", sourceLocation: sourceLocation)
    } catch {
        Issue.record("replica replay failed: \(error)", sourceLocation: sourceLocation)
    }
    // Replays through the JSON Patch rendering.
    do {
        let patch = JSONPatch(diff: diff, from: old, to: new)
        let patched = try patch.apply(to: old.jsonValue)
        #expect(patched == new.jsonValue, "JSON Patch replay differs", sourceLocation: sourceLocation)
        // Through its JSON form too.
        let reread = try JSONPatch(json: try JSONReader().read(JSONWriter.bytes(of: patch.jsonValue)))
        #expect(reread == patch, sourceLocation: sourceLocation)
    } catch {
        Issue.record("JSON Patch replay failed: \(error)", sourceLocation: sourceLocation)
    }
    // The JSON form reads back to the same diff.
    do {
        let reread = try ListDiff(json: try JSONReader().read(JSONWriter.bytes(of: diff.jsonValue)))
        #expect(reread == diff, sourceLocation: sourceLocation)
    } catch {
        Issue.record("diff JSON does not read back: \(error)", sourceLocation: sourceLocation)
    }
    #expect(diff.fromCounts == old.sectionCounts, sourceLocation: sourceLocation)
    #expect(diff.toCounts == new.sectionCounts, sourceLocation: sourceLocation)
    expectRules(diff, from: old, to: new, sourceLocation: sourceLocation)
}

private func expectRules(_ diff: ListDiff, from old: ListDocument, to new: ListDocument, sourceLocation: SourceLocation) {
    let deletedSections = Set(diff.sections.deleted)
    let insertedSections = Set(diff.sections.inserted.map(\.at))
    // Sorted lists.
    #expect(diff.sections.deleted == diff.sections.deleted.sorted(), sourceLocation: sourceLocation)
    #expect(diff.sections.inserted.map(\.at) == diff.sections.inserted.map(\.at).sorted(), sourceLocation: sourceLocation)
    #expect(diff.sections.moved.map(\.to) == diff.sections.moved.map(\.to).sorted(), sourceLocation: sourceLocation)
    #expect(diff.sections.updated.map(\.at) == diff.sections.updated.map(\.at).sorted(), sourceLocation: sourceLocation)
    #expect(diff.items.deleted == diff.items.deleted.sorted(), sourceLocation: sourceLocation)
    #expect(diff.items.inserted.map(\.at) == diff.items.inserted.map(\.at).sorted(), sourceLocation: sourceLocation)
    #expect(diff.items.moved.map(\.to) == diff.items.moved.map(\.to).sorted(), sourceLocation: sourceLocation)
    #expect(diff.items.updated.map(\.at) == diff.items.updated.map(\.at).sorted(), sourceLocation: sourceLocation)
    // No index path inside a deleted (old) or inserted (new) section; each at most once.
    let oldPaths = diff.items.deleted + diff.items.moved.map(\.from)
    let newPaths = diff.items.inserted.map(\.at) + diff.items.moved.map(\.to)
    #expect(Set(oldPaths).count == oldPaths.count, sourceLocation: sourceLocation)
    #expect(Set(newPaths).count == newPaths.count, sourceLocation: sourceLocation)
    #expect(!oldPaths.contains { deletedSections.contains($0.section) }, sourceLocation: sourceLocation)
    #expect(!(newPaths + diff.items.updated.map(\.at)).contains { insertedSections.contains($0.section) }, sourceLocation: sourceLocation)
    // Items on both sides are never deleted and inserted unless their section is.
    let oldIDs = Set(old.sections.flatMap { $0.items.map(\.id) })
    let newIDs = Set(new.sections.flatMap { $0.items.map(\.id) })
    let insertedIDs = diff.items.inserted.map(\.item.id)
    for id in insertedIDs where oldIDs.contains(id) {
        let oldSection = old.sections.firstIndex { $0.items.contains { $0.id == id } }!
        #expect(deletedSections.contains(oldSection), "item \(id) deleted and inserted", sourceLocation: sourceLocation)
    }
    for path in diff.items.deleted {
        let id = old.sections[path.section].items[path.item].id
        if newIDs.contains(id) {
            let newSection = new.sections.firstIndex { $0.items.contains { $0.id == id } }!
            #expect(insertedSections.contains(newSection), "item \(id) deleted but kept", sourceLocation: sourceLocation)
        }
    }
    // Updates exactly where content changed.
    let oldItems = Dictionary(uniqueKeysWithValues: old.sections.flatMap(\.items).map { ($0.id, $0) })
    for update in diff.items.updated {
        #expect(oldItems[update.item.id]?.hasDifferentContent(from: update.item) == true, sourceLocation: sourceLocation)
    }
    // Moves are minimal: per surviving section, the items that stay number the LIS of their old positions.
    #expect(diff.items.moved.count == minimalItemMoves(old: old, new: new), sourceLocation: sourceLocation)
    #expect(diff.sections.moved.count == minimalSectionMoves(old: old, new: new), sourceLocation: sourceLocation)
}

/// The LIS length by the quadratic textbook method, independent of the implementation under test.
func quadraticLISLength(_ values: [Int]) -> Int {
    var best = [Int](repeating: 1, count: values.count)
    for i in values.indices {
        for j in 0..<i where values[j] < values[i] { best[i] = max(best[i], best[j] + 1) }
    }
    return best.max() ?? 0
}

func minimalSectionMoves(old: ListDocument, new: ListDocument) -> Int {
    let oldIndex = Dictionary(uniqueKeysWithValues: old.sections.enumerated().map { ($1.id, $0) })
    let common = new.sections.compactMap { oldIndex[$0.id] }
    return common.count - quadraticLISLength(common)
}

func minimalItemMoves(old: ListDocument, new: ListDocument) -> Int {
    var location: [String: (section: String, index: Int)] = [:]
    for section in old.sections {
        for (index, item) in section.items.enumerated() { location[item.id] = (section.id, index) }
    }
    let oldSectionIDs = Set(old.sections.map(\.id))
    let newSectionIDs = Set(new.sections.map(\.id))
    var moves = 0
    for section in new.sections where oldSectionIDs.contains(section.id) {
        var same: [Int] = []
        for item in section.items {
            guard let from = location[item.id], newSectionIDs.contains(from.section), oldSectionIDs.contains(from.section) else { continue }
            if from.section == section.id { same.append(from.index) } else { moves += 1 }
        }
        moves += same.count - quadraticLISLength(same)
    }
    return moves
}
