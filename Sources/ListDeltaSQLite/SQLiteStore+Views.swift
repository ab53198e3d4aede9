import GRDB
public import ListDeltaStorage

/// Views in SQLite. Every change of a view's row, and every check of it before a view's write, happens in the one
/// write transaction SQLite allows at a time, so the checks and what they guard are atomic.
extension SQLiteStore: ViewStore {
    public func view(_ list: String) throws(StoreError) -> StoredView? {
        try StoreError.catching {
            try pool.read { db in try ViewRecord.fetchOne(db, key: list)?.view }
        }
    }

    public func views(of base: String) throws(StoreError) -> [StoredView] {
        try StoreError.catching {
            try pool.read { db in
                try ViewRecord.filter(ViewRecord.Columns.baseID == base).order(ViewRecord.Columns.listID).fetchAll(db).map(\.view)
            }
        }
    }

    public func allViews() throws(StoreError) -> [StoredView] {
        try StoreError.catching {
            try pool.read { db in try ViewRecord.order(ViewRecord.Columns.listID).fetchAll(db).map(\.view) }
        }
    }

    public func attachView(list: String, base: String, definition: String, maximumViews: Int) throws(StoreError) -> (created: Bool, view: StoredView) {
        try StoreError.catching {
            try pool.write { db in
                let current = try ViewRecord.fetchOne(db, key: list)
                if current == nil {
                    guard try ViewRecord.fetchCount(db) < maximumViews else {
                        throw StoreError.limitReached("the service holds its maximum of \(maximumViews) views")
                    }
                }
                let view = StoredView(list: list, base: base, definition: definition, generation: (current?.generation ?? 0) + 1, baseStep: -1)
                try ViewRecord(view).save(db)
                return (current == nil, view)
            }
        }
    }

    public func detachView(_ list: String) throws(StoreError) -> Bool {
        try StoreError.catching {
            try pool.write { db in try ViewRecord.deleteOne(db, key: list) }
        }
    }

    public func advanceView(list: String, step: ViewStep, atRevision: Int?) throws(StoreError) -> Bool {
        try advanceViews([ViewAdvance(list: list, step: step, atRevision: atRevision)])[0]
    }

    public func advanceViews(_ advances: [ViewAdvance]) throws(StoreError) -> [Bool] {
        guard !advances.isEmpty else { return [] }
        return try StoreError.catching {
            try pool.write { db in
                try advances.map { advance in
                    let head = try HeadRecord.fetchOne(db, key: advance.list)
                    guard (head?.isDeleted == false ? head?.revision : nil) == advance.atRevision else { return false }
                    do {
                        try Self.moveView(db, list: advance.list, to: advance.step)
                        return true
                    } catch StoreError.superseded {
                        return false
                    }
                }
            }
        }
    }

    /// Records that the view `list` is at `step`, if that moves it forward (see ``ViewStep/refusal(stored:)``).
    ///
    /// - Parameter db: A connection inside the write transaction that commits what the step guards.
    /// - Throws: ``StoreError/superseded(_:)`` when it would not, having changed nothing.
    static func moveView(_ db: Database, list: String, to step: ViewStep) throws(StoreError) {
        try StoreError.catching {
            let stored = try ViewRecord.fetchOne(db, key: list)
            if let refusal = step.refusal(stored: stored.map { ($0.generation, $0.baseStep) }) { throw refusal }
            try db.execute(sql: "UPDATE list_view SET base_step = ? WHERE list_id = ?", arguments: [step.baseStep, list])
        }
    }
}
