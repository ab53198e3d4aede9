import Testing
@testable import ListDeltaApplication

@Suite struct DirectlyWrittenListsTests {
    @Test func aListReadAsUnsourcedIsRememberedUntilItsSourceChanges() {
        let lists = DirectlyWrittenLists(isTrusted: true)
        #expect(!lists.contains("a"))
        lists.insert("a", readIn: lists.generation)
        #expect(lists.contains("a"))
        lists.remove("a")
        #expect(!lists.contains("a"))
    }

    @Test func aReadBegunBeforeAnAttachRecordsNothing() {
        let lists = DirectlyWrittenLists(isTrusted: true)
        let before = lists.generation
        // An attach commits (and is forgotten) while the check's read of the store is under way.
        lists.remove("a")
        lists.insert("a", readIn: before)
        #expect(!lists.contains("a"))
    }

    @Test func nothingIsUsedOrRecordedWhileAnnouncementsCannotBeReceived() {
        let lists = DirectlyWrittenLists(isTrusted: false)
        lists.insert("a", readIn: lists.generation)
        #expect(!lists.contains("a"))
        lists.resume()
        lists.insert("a", readIn: lists.generation)
        #expect(lists.contains("a"))
        lists.suspend()
        #expect(!lists.contains("a"))
        lists.resume()
        #expect(!lists.contains("a"), "what was recorded before an interruption is gone")
    }

    @Test func theRecordIsBounded() {
        let lists = DirectlyWrittenLists(isTrusted: true, capacity: 3)
        for name in ["a", "b", "c", "d"] { lists.insert(name, readIn: lists.generation) }
        #expect(lists.contains("d"))
        #expect(!lists.contains("a"))
    }
}
