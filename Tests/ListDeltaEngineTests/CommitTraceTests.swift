import ListDeltaStorage
import Testing

/// A commit's `traceparent` is kept only when it is one: it is stored in announcements other instances read.
@Suite struct CommitTraceTests {
    @Test func onlyAVersion00TraceparentIsKept() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(CommitTrace(traceParent: good, committedAtMilliseconds: 0).traceParent == good)
        for bad in [
            "", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-011", "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0 ", String(repeating: "0", count: 10_000),
        ] {
            #expect(CommitTrace(traceParent: bad, committedAtMilliseconds: 0).traceParent == nil, "\(bad.prefix(60))")
        }
    }
}
