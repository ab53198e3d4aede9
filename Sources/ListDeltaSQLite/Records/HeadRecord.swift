import GRDB
import ListDeltaStorage

/// The `list_head` row: a ``ListHead`` plus bookkeeping the API does not expose.
struct HeadRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "list_head"

    var id: String
    var revision: Int
    var isDeleted: Bool
    var oldestRevision: Int
    var firstRevision: Int
    /// The revision of the latest snapshot in the current incarnation.
    var checkpointRevision: Int
    var kind: String
    var sectionCount: Int
    var itemCount: Int
    var deltaBytesSinceCheckpoint: Int
    var checkpointBytes: Int

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id
        case revision
        case isDeleted = "is_deleted"
        case oldestRevision = "oldest_revision"
        case firstRevision = "first_revision"
        case checkpointRevision = "checkpoint_revision"
        case kind
        case sectionCount = "section_count"
        case itemCount = "item_count"
        case deltaBytesSinceCheckpoint = "delta_bytes_since_checkpoint"
        case checkpointBytes = "checkpoint_bytes"
    }

    /// The public view of this row.
    var head: ListHead {
        ListHead(
            id: id,
            revision: revision,
            isDeleted: isDeleted,
            oldestRevision: oldestRevision,
            firstRevision: firstRevision,
            kind: kind,
            sectionCount: sectionCount,
            itemCount: itemCount,
            deltaBytesSinceCheckpoint: deltaBytesSinceCheckpoint,
            checkpointBytes: checkpointBytes
        )
    }
}
