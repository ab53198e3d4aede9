public import Foundation
public import ListDeltaCore

/// The operations a view received between the start and the end of one batch.
public struct ReceivedBatch: Sendable, Equatable {
    /// Sections deleted (old indexes), in call order.
    public var deletedSections: [Int] = []
    /// Sections inserted (new indexes), in call order.
    public var insertedSections: [Int] = []
    /// Sections moved.
    public var movedSections: [Move<Int>] = []
    /// Items deleted (old paths).
    public var deletedItems: [IndexPath] = []
    /// Items inserted (new paths).
    public var insertedItems: [IndexPath] = []
    /// Items moved.
    public var movedItems: [Move<IndexPath>] = []
    /// Items reloaded or reconfigured inside the batch (old paths, as UIKit reads reloads).
    public var reloadedItems: [IndexPath] = []
    /// Sections reloaded inside the batch (old indexes).
    public var reloadedSections: [Int] = []

    /// An empty batch.
    public init() {}
}

/// The rules `UICollectionView` and `UITableView` enforce on one batch, where breaking one raises
/// `NSInternalInconsistencyException` ("Invalid update") and ends the app:
///
/// - every index exists: deleted sections, deleted items, move sources and reloads in the state before the
///   batch; inserted sections, inserted items and move targets in the state after it;
/// - nothing is touched twice: no section or item deleted, inserted, moved from or moved to twice;
/// - no conflicting operations on one position: not deleted and moved from, not inserted and moved to, not
///   reloaded and deleted, not reloaded and moved; no item operation inside a section deleted (old state) or
///   inserted (new state) in the same batch, no section moved from a deleted one or to an inserted one;
/// - the counts agree: sections after = before − deleted + inserted; and for each section that is not new,
///   items after = items before (in its old position) − deleted + inserted − moved out + moved in.
public enum BatchRules {
    /// The rules `batch` breaks, given the item counts per section before (`before`) and after (`after`, what
    /// the data source answers at the end of the batch); empty when UIKit would accept it.
    /// - Complexity: O(*s* + *k* log *k*) for *s* sections and *k* operations.
    public static func violations(of batch: ReceivedBatch, before: [Int], after: [Int]) -> [String] {
        var found: [String] = []
        let deletedSections = sectionSet(batch.deletedSections, "delete", in: before, "before", &found)
        let insertedSections = sectionSet(batch.insertedSections, "insert", in: after, "after", &found)
        var movedFrom = Set<Int>(), movedTo = Set<Int>()
        for move in batch.movedSections {
            if !before.indices.contains(move.from) { found.append("attempt to move section \(move.from), but there are only \(before.count) sections before the update") }
            if !after.indices.contains(move.to) { found.append("attempt to move section \(move.from) to section \(move.to), but there are only \(after.count) sections after the update") }
            if deletedSections.contains(move.from) { found.append("attempt to delete and move section \(move.from)") }
            if insertedSections.contains(move.to) { found.append("attempt to insert and move to section \(move.to)") }
            if !movedFrom.insert(move.from).inserted { found.append("attempt to move section \(move.from) twice") }
            if !movedTo.insert(move.to).inserted { found.append("attempt to move two sections to section \(move.to)") }
        }
        let sectionsExpected = before.count - deletedSections.count + insertedSections.count
        if after.count != sectionsExpected {
            found.append("invalid number of sections: the number of sections after the update (\(after.count)) must equal the number before (\(before.count)), plus or minus the number inserted or deleted (\(insertedSections.count) inserted, \(deletedSections.count) deleted)")
        }

        let deletedItems = pathSet(batch.deletedItems, "delete", in: before, "before", inside: deletedSections, "deleted", &found)
        let insertedItems = pathSet(batch.insertedItems, "insert", in: after, "after", inside: insertedSections, "inserted", &found)
        var itemsMovedFrom = Set<IndexPath>(), itemsMovedTo = Set<IndexPath>()
        for move in batch.movedItems {
            guard move.from.count == 2, move.to.count == 2 else {
                found.append("attempt to move an item between index paths of \(move.from.count) and \(move.to.count) indexes")
                continue
            }
            if !exists(move.from, in: before) { found.append("attempt to move item \(describe(move.from)), which does not exist before the update") }
            if !exists(move.to, in: after) { found.append("attempt to move an item to \(describe(move.to)), which does not exist after the update") }
            if deletedItems.contains(move.from) { found.append("attempt to perform a delete and a move from the same index path \(describe(move.from))") }
            if insertedItems.contains(move.to) { found.append("attempt to perform an insert and a move to the same index path \(describe(move.to))") }
            if deletedSections.contains(move.from[0]) { found.append("attempt to move item \(describe(move.from)) out of a section being deleted") }
            if insertedSections.contains(move.to[0]) { found.append("attempt to move an item into section \(move.to[0]), which is being inserted") }
            if !itemsMovedFrom.insert(move.from).inserted { found.append("attempt to move item \(describe(move.from)) twice") }
            if !itemsMovedTo.insert(move.to).inserted { found.append("attempt to move two items to \(describe(move.to))") }
        }
        for path in batch.reloadedItems {
            guard exists(path, in: before) else {
                found.append("attempt to reload item \(describe(path)), which does not exist before the update")
                continue
            }
            if deletedItems.contains(path) || deletedSections.contains(path[0]) { found.append("attempt to delete and reload the same index path \(describe(path))") }
            if itemsMovedFrom.contains(path) { found.append("attempt to move and reload the same index path \(describe(path))") }
        }
        for section in batch.reloadedSections {
            if !before.indices.contains(section) { found.append("attempt to reload section \(section), but there are only \(before.count) sections before the update") }
            if deletedSections.contains(section) || movedFrom.contains(section) { found.append("attempt to reload section \(section), which is also deleted or moved") }
        }
        guard found.isEmpty else { return found }
        found += itemCountViolations(batch, before: before, after: after, deletedSections: deletedSections,
                                     insertedSections: insertedSections)
        return found
    }

    /// For each new section that is not inserted: its old index, from the section moves and the order of the
    /// sections that stay.
    static func origins(before: Int, after: Int, deleted: Set<Int>, inserted: Set<Int>, moves: [Move<Int>]) -> [Int?] {
        var origins = [Int?](repeating: nil, count: after)
        for move in moves { origins[move.to] = move.from }
        let movedFrom = Set(moves.map(\.from)), movedTo = Set(moves.map(\.to))
        var staying = (0..<before).filter { !deleted.contains($0) && !movedFrom.contains($0) }.makeIterator()
        for index in 0..<after where !inserted.contains(index) && !movedTo.contains(index) {
            origins[index] = staying.next()
        }
        return origins
    }

    private static func itemCountViolations(
        _ batch: ReceivedBatch, before: [Int], after: [Int], deletedSections: Set<Int>, insertedSections: Set<Int>
    ) -> [String] {
        let origins = origins(before: before.count, after: after.count, deleted: deletedSections,
                              inserted: insertedSections, moves: batch.movedSections)
        var found: [String] = []
        for (section, origin) in origins.enumerated() {
            guard let origin else { continue }
            let deleted = batch.deletedItems.count { $0[0] == origin }
            let inserted = batch.insertedItems.count { $0[0] == section }
            let movedOut = batch.movedItems.count { $0.from[0] == origin && origins[$0.to[0]] != origin }
            let movedIn = batch.movedItems.count { $0.to[0] == section && $0.from[0] != origin }
            let expected = before[origin] - deleted + inserted - movedOut + movedIn
            if after[section] != expected {
                found.append("invalid number of items in section \(section): the number of items contained in an existing section after the update (\(after[section])) must be equal to the number of items contained in that section before the update (\(before[origin])), plus or minus the number of items inserted or deleted from that section (\(inserted) inserted, \(deleted) deleted) and plus or minus the number of items moved into or out of that section (\(movedIn) moved in, \(movedOut) moved out)")
            }
        }
        return found
    }

    private static func sectionSet(_ indexes: [Int], _ verb: String, in counts: [Int], _ when: String, _ found: inout [String]) -> Set<Int> {
        var set = Set<Int>()
        for index in indexes {
            if !counts.indices.contains(index) { found.append("attempt to \(verb) section \(index), but there are only \(counts.count) sections \(when) the update") }
            if !set.insert(index).inserted { found.append("attempt to \(verb) section \(index) twice") }
        }
        return set
    }

    private static func pathSet(
        _ paths: [IndexPath], _ verb: String, in counts: [Int], _ when: String, inside sections: Set<Int>,
        _ sectionState: String, _ found: inout [String]
    ) -> Set<IndexPath> {
        var set = Set<IndexPath>()
        for path in paths {
            if path.count != 2 {
                found.append("attempt to \(verb) an item at an index path of \(path.count) indexes")
                continue
            }
            if !counts.indices.contains(path[0]) {
                found.append("attempt to \(verb) item \(path[1]) in section \(path[0]), but there are only \(counts.count) sections \(when) the update")
            } else if !(0..<counts[path[0]]).contains(path[1]) {
                found.append("attempt to \(verb) item \(path[1]) in section \(path[0]), which only contains \(counts[path[0]]) items \(when) the update")
            }
            if sections.contains(path[0]) { found.append("attempt to \(verb) item \(describe(path)) in a section being \(sectionState)") }
            if !set.insert(path).inserted { found.append("attempt to \(verb) item \(describe(path)) twice") }
        }
        return set
    }

    /// `true` when `path` names an item of a view with these item counts per section.
    static func exists(_ path: IndexPath, in counts: [Int]) -> Bool {
        path.count == 2 && counts.indices.contains(path[0]) && (0..<counts[path[0]]).contains(path[1])
    }

    /// `[section, item]`.
    static func describe(_ path: IndexPath) -> String {
        "[" + path.map(String.init).joined(separator: ", ") + "]"
    }
}
