import ListDeltaSQLite
import ListDeltaStorage

/// Deterministic blob for a revision, so that tests can check what comes back.
func blob(_ tag: UInt8, revision: Int, count: Int = 16) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: Int(tag) &+ revision &+ $0) }
}

extension RevisionWrite {
    /// The first revision of an incarnation.
    static func create(_ id: String, revision: Int = 1, kind: String = "plain", snapshotSize: Int = 32) -> RevisionWrite {
        RevisionWrite(
            listID: id, expectedRevision: nil, kind: kind, sectionCount: 1, itemCount: 0,
            delta: nil, snapshot: blob(1, revision: revision, count: snapshotSize)
        )
    }

    /// An update on top of `expected`, with an optional checkpoint.
    static func update(_ id: String, expected: Int, deltaSize: Int = 8, checkpoint: Bool = false) -> RevisionWrite {
        RevisionWrite(
            listID: id, expectedRevision: expected, kind: "plain", sectionCount: 1, itemCount: expected,
            delta: blob(2, revision: expected + 1, count: deltaSize),
            snapshot: checkpoint ? blob(1, revision: expected + 1, count: 32) : nil
        )
    }
}
