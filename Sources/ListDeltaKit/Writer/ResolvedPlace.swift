import ListDeltaCore

/// A ``ListPlacement`` resolved against the sections of one document: a section index and where in it.
struct ResolvedPlace: Equatable {
    enum Position: Equatable {
        case first
        case last
        /// After the item at this index.
        case after(Int)
    }

    var section: Int
    var position: Position

    /// Where `placement` is in `sections`, or what is gone: the section named, or the anchor (also when it is in
    /// another section than the one named).
    /// - Complexity: O(*n*) in the items.
    static func resolve(_ placement: ListPlacement, in sections: [ListSection]) -> Result<ResolvedPlace, WriteConflict.Reason> {
        var named: Int?
        if let id = placement.section {
            guard let index = sections.firstIndex(where: { $0.id == id }) else { return .failure(.section) }
            named = index
        }
        switch placement.anchor {
        case .first, .last:
            // A place names a section or an anchor (``ListWrite/validated()``).
            guard let named else { return .failure(.section) }
            return .success(ResolvedPlace(section: named, position: placement.anchor == .first ? .first : .last))
        case .after(let id):
            guard let at = locate(id, in: sections), named == nil || named == at.section else { return .failure(.anchor) }
            return .success(ResolvedPlace(section: at.section, position: .after(at.item)))
        }
    }

    /// The index an item placed here takes in a section of `count` items.
    func index(among count: Int) -> Int {
        switch position {
        case .first: 0
        case .last: count
        case .after(let anchor): anchor + 1
        }
    }

    /// Where item `id` is in `sections`.
    /// - Complexity: O(*n*) in the items.
    static func locate(_ id: String, in sections: [ListSection]) -> ItemPath? {
        for (s, section) in sections.enumerated() {
            if let i = section.items.firstIndex(where: { $0.id == id }) { return ItemPath(section: s, item: i) }
        }
        return nil
    }
}
