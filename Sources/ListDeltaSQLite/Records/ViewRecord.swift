import GRDB
import ListDeltaStorage

/// The `list_view` row: a ``StoredView``.
struct ViewRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "list_view"

    var listID: String
    var baseID: String
    var definition: String
    var generation: Int
    var baseStep: Int

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case listID = "list_id"
        case baseID = "base_id"
        case definition
        case generation
        case baseStep = "base_step"
    }

    typealias Columns = CodingKeys

    /// The row of a stored view.
    init(_ view: StoredView) {
        listID = view.list
        baseID = view.base
        definition = view.definition
        generation = view.generation
        baseStep = view.baseStep
    }

    /// The store-neutral view of this row.
    var view: StoredView {
        StoredView(list: listID, base: baseID, definition: definition, generation: generation, baseStep: baseStep)
    }
}
