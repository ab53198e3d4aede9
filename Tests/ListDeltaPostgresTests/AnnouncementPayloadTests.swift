@testable import ListDeltaPostgres
import ListDeltaStorage
import Testing

/// The text of a `NOTIFY`: a commit's trace rides in its first field, bounded, and neither an instance of an older
/// release nor this one loses an announcement over it.
@Suite struct AnnouncementPayloadTests {
    private let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aCommitsTraceRoundTripsAndIsMarkedAsAnotherInstances() throws {
        let sent = AnnouncementPayload(
            instance: "k3x9", kind: .committed, revision: 7, list: "news",
            trace: CommitTrace(traceParent: parent, committedAtMilliseconds: 1_764_000_000_123))
        #expect(sent.text == "k3x9;1764000000123;\(parent) c 7 news")
        let read = try #require(AnnouncementPayload(sent.text))
        #expect((read.instance, read.kind, read.revision, read.list) == ("k3x9", .committed, 7, "news"))
        #expect(read.trace == CommitTrace(traceParent: parent, committedAtMilliseconds: 1_764_000_000_123, isFromAnotherInstance: true))
        let longest = AnnouncementPayload(
            instance: "k3x9", kind: .committed, revision: 7, list: "news", trace: CommitTrace(traceParent: parent, committedAtMilliseconds: .max))
        #expect(longest.text.utf8.count - "k3x9 c 7 news".utf8.count == 76)
    }

    @Test func anAnnouncementWithoutATraceReadsAsBefore() throws {
        let read = try #require(AnnouncementPayload("k3x9 d 3 news"))
        #expect((read.instance, read.kind, read.revision, read.list, read.trace) == ("k3x9", .deleted, 3, "news", nil))
        #expect(AnnouncementPayload(instance: "k3x9", kind: .committed, revision: 1, list: "a").text == "k3x9 c 1 a")
    }

    @Test func aMalformedTraceIsDroppedNotTheAnnouncement() throws {
        let noisy = try #require(AnnouncementPayload("k3x9;12;00-zz-not-a-traceparent c 2 news"))
        #expect(noisy.trace == CommitTrace(traceParent: nil, committedAtMilliseconds: 12, isFromAnotherInstance: true))
        #expect(noisy.revision == 2)
        let noTime = try #require(AnnouncementPayload("k3x9;later c 2 news"))
        #expect((noTime.instance, noTime.trace) == ("k3x9", nil))
    }

    /// What a release before the trace reads: the whole first field as a name, never its own, so it still
    /// takes the commit in.
    @Test func anOlderReleaseReadsTheSameKindRevisionAndList() {
        let text = AnnouncementPayload(
            instance: "k3x9", kind: .committed, revision: 7, list: "news",
            trace: CommitTrace(traceParent: parent, committedAtMilliseconds: 1)).text
        let parts = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        #expect(parts.count == 4)
        #expect((parts[1], parts[2], parts[3]) == ("c", "7", "news"))
        #expect(parts[0] != "k3x9")
    }
}
