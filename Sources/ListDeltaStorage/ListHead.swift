/// The head row of a list: its current revision, served range and summary.
public struct ListHead: Sendable, Equatable {
    /// The list identifier. Lists are ordered by the UTF-8 bytes of their identifier.
    public var id: String

    /// The current revision (the last one written). For a deleted list, the last revision it had.
    public var revision: Int

    /// Whether the list is deleted. A deleted head (tombstone) keeps ``revision`` so numbers are never reused.
    public var isDeleted: Bool

    /// The oldest revision that is still served. Revisions below it are gone.
    public var oldestRevision: Int

    /// The first revision of the current incarnation. After a delete and recreate, numbering continues.
    public var firstRevision: Int

    /// The list kind, as given by the service for the list index.
    public var kind: String

    /// The number of sections, as given by the service.
    public var sectionCount: Int

    /// The number of items, as given by the service.
    public var itemCount: Int

    /// The number of delta bytes written since the latest checkpoint (0 right after a snapshot).
    public var deltaBytesSinceCheckpoint: Int

    /// The size in bytes of the latest snapshot blob.
    public var checkpointBytes: Int

    /// Creates a head.
    ///
    /// - Parameters: One per stored property, see each property.
    public init(
        id: String,
        revision: Int,
        isDeleted: Bool,
        oldestRevision: Int,
        firstRevision: Int,
        kind: String,
        sectionCount: Int,
        itemCount: Int,
        deltaBytesSinceCheckpoint: Int,
        checkpointBytes: Int
    ) {
        self.id = id
        self.revision = revision
        self.isDeleted = isDeleted
        self.oldestRevision = oldestRevision
        self.firstRevision = firstRevision
        self.kind = kind
        self.sectionCount = sectionCount
        self.itemCount = itemCount
        self.deltaBytesSinceCheckpoint = deltaBytesSinceCheckpoint
        self.checkpointBytes = checkpointBytes
    }
}
