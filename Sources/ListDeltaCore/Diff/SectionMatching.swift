/// How the sections of two documents correspond: the section half of a diff.
struct SectionMatching {
    /// For each old section, its index in the new document, or -1 when it is deleted.
    var oldToNew: [Int32]
    /// For each new section, its index in the old document, or -1 when it is inserted.
    var newToOld: [Int32]

    /// Matches sections by id and fills the section operations of `diff`.
    /// - Complexity: O(*s* log *s*) for *s* sections.
    init(old: [ListSection], new: [ListSection], into changes: inout SectionChanges) {
        oldToNew = [Int32](repeating: -1, count: old.count)
        newToOld = [Int32](repeating: -1, count: new.count)
        if Self.sameIDs(old, new) {
            for index in old.indices {
                oldToNew[index] = Int32(index)
                newToOld[index] = Int32(index)
            }
        } else {
            var oldIndexByID: [String: Int32] = [:]
            oldIndexByID.reserveCapacity(old.count)
            for (index, section) in old.enumerated() { oldIndexByID[section.id] = Int32(index) }
            for (index, section) in new.enumerated() {
                if let oldIndex = oldIndexByID[section.id] {
                    newToOld[index] = oldIndex
                    oldToNew[Int(oldIndex)] = Int32(index)
                }
            }
        }
        for (index, target) in oldToNew.enumerated() where target < 0 {
            changes.deleted.append(index)
        }
        var survivorsInNewOrder: [Int] = []
        var survivingOldIndexes: [Int32] = []
        for (index, source) in newToOld.enumerated() {
            if source < 0 {
                changes.inserted.append(SectionInsertion(at: index, section: new[index]))
            } else {
                survivorsInNewOrder.append(index)
                survivingOldIndexes.append(source)
            }
        }
        let stays = LongestIncreasingSubsequence.members(of: survivingOldIndexes)
        for (position, newIndex) in survivorsInNewOrder.enumerated() {
            let oldIndex = Int(survivingOldIndexes[position])
            if !stays[position] {
                changes.moved.append(Move(from: oldIndex, to: newIndex))
            }
            if old[oldIndex].header != new[newIndex].header {
                changes.updated.append(SectionUpdate(at: newIndex, header: new[newIndex].header))
            }
        }
    }

    private static func sameIDs(_ old: [ListSection], _ new: [ListSection]) -> Bool {
        guard old.count == new.count else { return false }
        for index in old.indices where old[index].id != new[index].id { return false }
        return true
    }
}
