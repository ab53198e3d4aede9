import Testing
@testable import ListDeltaCore

/// Records the calls a view would receive.
private struct RecordingTarget: ListUpdateTarget {
    var calls: [String] = []
    mutating func beginUpdates() { calls.append("begin") }
    mutating func deleteSections(_ indexes: [Int]) { calls.append("deleteSections \(indexes)") }
    mutating func insertSections(_ insertions: [SectionInsertion]) { calls.append("insertSections \(insertions.map(\.at))") }
    mutating func moveSection(from: Int, to: Int) { calls.append("moveSection \(from)->\(to)") }
    mutating func deleteItems(at paths: [ItemPath]) { calls.append("deleteItems \(paths)") }
    mutating func insertItems(_ insertions: [ItemInsertion]) { calls.append("insertItems \(insertions.map(\.at))") }
    mutating func moveItem(from: ItemPath, to: ItemPath) { calls.append("moveItem \(from)->\(to)") }
    mutating func endUpdates() throws(DiffApplicationError) { calls.append("end") }
    mutating func updateSectionHeaders(_ updates: [SectionUpdate]) throws(DiffApplicationError) { calls.append("headers \(updates.map(\.at))") }
    mutating func reconfigureItems(_ updates: [ItemUpdate]) throws(DiffApplicationError) { calls.append("reconfigure \(updates.map(\.at))") }
}

@Suite struct TargetTests {
    @Test func targetIsDrivenInUIKitOrder() throws {
        let a = ListDocument(id: "l", revision: 1, sections: [
            ListSection(id: "a", title: "A", items: [ListItem(id: "1"), ListItem(id: "2"), ListItem(id: "3")]),
            ListSection(id: "b", items: [ListItem(id: "4")]),
            ListSection(id: "c"),
        ])
        let b = ListDocument(id: "l", revision: 2, sections: [
            ListSection(id: "c"),
            ListSection(id: "a", title: "A2", items: [ListItem(id: "3"), ListItem(id: "1", model: true), ListItem(id: "5")]),
            ListSection(id: "d"),
        ])
        var target = RecordingTarget()
        try ListDiff(from: a, to: b).perform(on: &target)
        #expect(target.calls == [
            "begin",
            "deleteSections [1]",
            "insertSections [2]",
            "moveSection 0->1",
            "deleteItems [[0, 1]]",
            "insertItems [[1, 2]]",
            "moveItem [0, 0]->[1, 1]",
            "end",
            "headers [1]",
            "reconfigure [[1, 1]]",
        ])
    }
}
