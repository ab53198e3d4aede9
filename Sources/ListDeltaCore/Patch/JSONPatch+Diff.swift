extension JSONPatch {
    /// The RFC 6902 rendering of a batch diff: applied in order to `old`'s JSON it gives `new`'s JSON.
    ///
    /// Its size grows with the change, not with the list: unchanged items are not mentioned, a moved item or
    /// section is one `move`, an updated item one `replace`. From revision 0 it is one `replace` of the whole
    /// document. `/revision`, `/kind` and `/cells` are included when they change.
    /// - Parameters:
    ///   - diff: the batch diff from `old` to `new`.
    /// - Complexity: O(*n* + *k* log *n*) for *n* items in the sections the diff touches and *k* operations.
    public init(diff: ListDiff, from old: ListDocument, to new: ListDocument) {
        guard old.revision > 0 else {
            self.init([.replace(path: JSONPointer(), value: new.jsonValue)])
            return
        }
        var renderer = PatchRenderer(diff: diff)
        renderer.renderHeader(old: old, new: new)
        renderer.renderDeletions()
        renderer.renderSections()
        renderer.renderItems()
        renderer.renderUpdates()
        self.init(renderer.operations)
    }
}

/// Builds the operations of `JSONPatch(diff:from:to:)`.
private struct PatchRenderer {
    let diff: ListDiff
    var operations: [JSONPatchOperation] = []
    /// New index of each old section, or -1 when deleted.
    private var oldToNewSection: [Int] = []
    /// Old index of each new section, or -1 when inserted.
    private var newToOldSection: [Int] = []

    init(diff: ListDiff) {
        self.diff = diff
    }

    private static func itemPath(_ section: Int, _ item: Int) -> JSONPointer {
        JSONPointer(tokens: ["sections", String(section), "items", String(item)])
    }

    private static func sectionPath(_ section: Int) -> JSONPointer {
        JSONPointer(tokens: ["sections", String(section)])
    }

    mutating func renderHeader(old: ListDocument, new: ListDocument) {
        operations.append(.replace(path: JSONPointer(tokens: ["revision"]), value: .number(JSONNumber(new.revision))))
        if old.kind != new.kind {
            operations.append(.replace(path: JSONPointer(tokens: ["kind"]), value: .string(new.kind.rawValue)))
        }
        let cells = JSONPointer(tokens: ["cells"])
        switch (old.cellsJSON, new.cellsJSON) {
        case (nil, let added?): operations.append(.add(path: cells, value: added))
        case (.some, nil): operations.append(.remove(path: cells))
        case let (before?, after?) where before != after: operations.append(.replace(path: cells, value: after))
        default: break
        }
    }

    /// Deleted items (descending, in old sections), then deleted sections (descending).
    mutating func renderDeletions() {
        for path in diff.items.deleted.reversed() {
            operations.append(.remove(path: Self.itemPath(path.section, path.item)))
        }
        for section in diff.sections.deleted.reversed() {
            operations.append(.remove(path: Self.sectionPath(section)))
        }
    }

    /// Section inserts and moves, in ascending target order.
    mutating func renderSections() {
        let oldCount = diff.fromCounts.count
        let newCount = diff.toCounts.count
        var deleted = [Bool](repeating: false, count: oldCount)
        for index in diff.sections.deleted { deleted[index] = true }
        var leaving = [Bool](repeating: false, count: oldCount)
        newToOldSection = [Int](repeating: -1, count: newCount)
        var arriving = [Bool](repeating: false, count: newCount)
        for insertion in diff.sections.inserted { arriving[insertion.at] = true }
        for move in diff.sections.moved {
            leaving[move.from] = true
            arriving[move.to] = true
            newToOldSection[move.to] = move.from
        }
        // Stayers fill the free new places in old order.
        var free = (0..<newCount).lazy.filter { !arriving[$0] }.makeIterator()
        for index in 0..<oldCount where !deleted[index] && !leaving[index] {
            if let slot = free.next() { newToOldSection[slot] = index }
        }
        oldToNewSection = [Int](repeating: -1, count: oldCount)
        for (newIndex, oldIndex) in newToOldSection.enumerated() where oldIndex >= 0 { oldToNewSection[oldIndex] = newIndex }
        guard !diff.sections.inserted.isEmpty || !diff.sections.moved.isEmpty else { return }

        let survivors = (0..<oldCount).filter { !deleted[$0] }
        var survivorIndex = [Int](repeating: -1, count: oldCount)
        for (position, index) in survivors.enumerated() { survivorIndex[index] = position }
        var plan = ArrayReorderPlan(oldLeaving: survivors.map { leaving[$0] }, newArriving: arriving)
        var insertions = diff.sections.inserted.makeIterator()
        var nextInsertion = insertions.next()
        for move in diff.sections.moved {
            while let insertion = nextInsertion, insertion.at < move.to {
                operations.append(.add(path: Self.sectionPath(plan.arrive(newIndex: insertion.at)), value: insertion.section.jsonValue))
                nextInsertion = insertions.next()
            }
            let from = plan.leave(oldIndex: survivorIndex[move.from])
            let to = plan.arrive(newIndex: move.to)
            operations.append(.move(from: Self.sectionPath(from), path: Self.sectionPath(to)))
        }
        while let insertion = nextInsertion {
            operations.append(.add(path: Self.sectionPath(plan.arrive(newIndex: insertion.at)), value: insertion.section.jsonValue))
            nextInsertion = insertions.next()
        }
    }

    /// Item inserts and moves, in ascending target order; sections are in their new order by now.
    mutating func renderItems() {
        guard !diff.items.inserted.isEmpty || !diff.items.moved.isEmpty else { return }
        var deletedBySection: [Int: Set<Int>] = [:]
        for path in diff.items.deleted { deletedBySection[path.section, default: []].insert(path.item) }
        var leavingBySection: [Int: Set<Int>] = [:]
        for move in diff.items.moved { leavingBySection[move.from.section, default: []].insert(move.from.item) }
        var arrivingBySection: [Int: Set<Int>] = [:]
        for insertion in diff.items.inserted { arrivingBySection[insertion.at.section, default: []].insert(insertion.at.item) }
        for move in diff.items.moved { arrivingBySection[move.to.section, default: []].insert(move.to.item) }

        // Plans are keyed by new section index; old item indexes are renumbered without the deleted ones.
        var plans: [Int: ArrayReorderPlan] = [:]
        var survivorIndexes: [Int: [Int]] = [:]
        func plan(forNewSection newSection: Int) -> ArrayReorderPlan {
            if let existing = plans[newSection] { return existing }
            let oldSection = newToOldSection[newSection]
            let deleted = deletedBySection[oldSection] ?? []
            let leaving = leavingBySection[oldSection] ?? []
            let arriving = arrivingBySection[newSection] ?? []
            var renumbered = [Int](repeating: -1, count: diff.fromCounts[oldSection])
            var oldLeaving: [Bool] = []
            for index in 0..<diff.fromCounts[oldSection] where !deleted.contains(index) {
                renumbered[index] = oldLeaving.count
                oldLeaving.append(leaving.contains(index))
            }
            survivorIndexes[newSection] = renumbered
            let made = ArrayReorderPlan(
                oldLeaving: oldLeaving,
                newArriving: (0..<diff.toCounts[newSection]).map { arriving.contains($0) }
            )
            plans[newSection] = made
            return made
        }

        var insertions = diff.items.inserted.makeIterator()
        var nextInsertion = insertions.next()
        func renderInsertion(_ insertion: ItemInsertion) {
            var targetPlan = plan(forNewSection: insertion.at.section)
            let index = targetPlan.arrive(newIndex: insertion.at.item)
            plans[insertion.at.section] = targetPlan
            operations.append(.add(path: Self.itemPath(insertion.at.section, index), value: insertion.item.jsonValue))
        }
        for move in diff.items.moved {
            while let insertion = nextInsertion, insertion.at < move.to {
                renderInsertion(insertion)
                nextInsertion = insertions.next()
            }
            let sourceSection = oldToNewSection[move.from.section]
            var sourcePlan = plan(forNewSection: sourceSection)
            let from = sourcePlan.leave(oldIndex: survivorIndexes[sourceSection]![move.from.item])
            plans[sourceSection] = sourcePlan
            var targetPlan = plan(forNewSection: move.to.section)
            let to = targetPlan.arrive(newIndex: move.to.item)
            plans[move.to.section] = targetPlan
            operations.append(.move(from: Self.itemPath(sourceSection, from), path: Self.itemPath(move.to.section, to)))
        }
        while let insertion = nextInsertion {
            renderInsertion(insertion)
            nextInsertion = insertions.next()
        }
    }

    /// Header replacements and item replacements at their new places.
    mutating func renderUpdates() {
        for update in diff.sections.updated {
            let path = Self.sectionPath(update.at)
            operations.append(.replace(path: path.appending("title"), value: update.header.title.map(JSONValue.string) ?? .null))
            operations.append(.replace(path: path.appending("indexTitle"), value: update.header.indexTitle.map(JSONValue.string) ?? .null))
        }
        for update in diff.items.updated {
            operations.append(.replace(path: Self.itemPath(update.at.section, update.at.item), value: update.item.jsonValue))
        }
    }
}
