import ListDeltaStorage
import Testing
@testable import ListDeltaEngine

/// The cached heads of a store other instances write to: announcements make older heads stale, and a read that
/// raced an announcement or a suspension caches nothing stale.
@Suite struct HeadCacheTests {
    private func head(_ id: String, _ revision: Int, deleted: Bool = false) -> ListHead {
        ListHead(
            id: id, revision: revision, isDeleted: deleted, oldestRevision: 1, firstRevision: 1, kind: "array", sectionCount: 1,
            itemCount: 0, deltaBytesSinceCheckpoint: 0, checkpointBytes: 0)
    }

    @Test func anAnnouncementMakesAnOlderHeadStaleAndKeepsANewerOne() {
        let cache = HeadCache(capacity: 10)
        cache.remember(head("a", 3), readIn: cache.generation)
        #expect(cache.announce("a", revision: 3, deleted: false) == false)
        #expect(cache.head("a")?.revision == 3)
        #expect(cache.announce("a", revision: 4, deleted: false) == true)
        #expect(cache.head("a") == nil)
        cache.remember(head("a", 4), readIn: cache.generation)
        #expect(cache.head("a")?.revision == 4)
    }

    @Test func aHeadReadBeforeAnAnnouncementIsNotCachedAfterIt() {
        let cache = HeadCache(capacity: 10)
        // A read in flight saw revision 2; meanwhile revision 3 was announced; the read then caches what it saw.
        cache.announce("a", revision: 3, deleted: false)
        cache.remember(head("a", 2), readIn: cache.generation)
        #expect(cache.head("a") == nil)
        cache.remember(head("a", 3), readIn: cache.generation)
        #expect(cache.head("a")?.revision == 3)
        // A newer head is never replaced by an older one.
        cache.remember(head("a", 2), readIn: cache.generation)
        #expect(cache.head("a")?.revision == 3)
    }

    @Test func aTombstoneComesAfterTheLiveHeadOfItsRevision() {
        let cache = HeadCache(capacity: 10)
        cache.remember(head("a", 5), readIn: cache.generation)
        cache.announce("a", revision: 5, deleted: true)
        #expect(cache.head("a") == nil)
        cache.remember(head("a", 5), readIn: cache.generation)
        #expect(cache.head("a") == nil)
        cache.remember(head("a", 5, deleted: true), readIn: cache.generation)
        #expect(cache.head("a")?.isDeleted == true)
        // Created again elsewhere: revision 6.
        cache.announce("a", revision: 6, deleted: false)
        #expect(cache.head("a") == nil)
    }

    @Test func whileSuspendedNothingIsServedOrCachedAndReadsFromBeforeAreDropped() {
        let cache = HeadCache(capacity: 10)
        cache.remember(head("a", 1), readIn: cache.generation)
        let before = cache.generation
        cache.suspend()
        #expect(cache.head("a") == nil)
        cache.remember(head("b", 1), readIn: cache.generation)
        #expect(cache.head("b") == nil)
        cache.resume()
        // A read that began before the suspension may predate a commit nobody announced.
        cache.remember(head("c", 1), readIn: before)
        #expect(cache.head("c") == nil)
        cache.remember(head("c", 1), readIn: cache.generation)
        #expect(cache.head("c")?.revision == 1)
    }

    @Test func itIsBoundedByCount() {
        let cache = HeadCache(capacity: 100)
        for index in 0..<1_000 {
            cache.remember(head("l\(index)", 1), readIn: cache.generation)
            cache.announce("m\(index)", revision: 2, deleted: false)
        }
        #expect(cache.count <= 100)
    }
}
