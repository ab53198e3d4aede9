/// The state of one view over one base revision, kept between base revisions so that an update costs
/// O(*k* log *m*) for *k* changed base items (*m* items matching the filter), not a full re-filter and re-sort.
///
/// It holds every matching item in view order (sorted, ties in base order) with its sort values; the view shows
/// those in its window (`offset` skipped, then `limit`). ``document(viewID:revision:)`` always equals
/// ``ViewDefinition/evaluate(over:viewID:revision:limits:)`` over the current base.
public struct ViewIndex: Sendable {
    /// The view's definition.
    public private(set) var definition: ViewDefinition
    /// The base revision the index stands at.
    public private(set) var base: ViewBase
    /// The bounds its documents are built within.
    public let limits: DocumentLimits
    private var matches: ViewMatchList

    /// Builds the index of `definition` over `base` (a full filter and sort).
    /// - Complexity: O(*n* log *n*) for *n* base items.
    public init(definition: ViewDefinition, base: ViewBase, limits: DocumentLimits) {
        self.init(definition: definition, base: base, limits: limits, maximumChunk: ViewMatchList.defaultMaximumChunk)
    }

    /// Builds the index with chunks of at most `maximumChunk` matches (small ones let tests split and empty chunks).
    init(definition: ViewDefinition, base: ViewBase, limits: DocumentLimits, maximumChunk: Int) {
        self.definition = definition
        self.base = base
        self.limits = limits
        matches = Self.build(definition, over: base.document, maximumChunk: maximumChunk)
    }

    /// The number of base items that match the filter (shown or beyond the limit).
    public var matchCount: Int { matches.count }

    /// The view's document: equal to `definition.evaluate(over: base.document, viewID:revision:limits:)`.
    /// - Complexity: O(*v* log *v*) for *v* shown items (only the window's matches are read, whole chunks before it
    ///   skipped), plus O(*m* / *c*) chunks and O(*s*) base sections for `keep`.
    public func document(viewID: String, revision: Int) -> ListDocument {
        let shown = matches.shown(definition.window)
        return definition.document(grouping: shown, base: base.document, viewID: viewID, revision: revision, limits: limits)
    }

    /// Brings the index to the base revision `new`.
    ///
    /// `diff` is `ListDiff(from: old document or .empty, to: new document or .empty)` when the caller has it;
    /// `nil` computes it. The changed base items (deleted, inserted, moved, updated, and all items of deleted or
    /// inserted sections) are taken out of the matches and put back where they now belong; every other item keeps
    /// its place, as it keeps its relative base order. Falls back to a full rebuild when sections moved, when
    /// more than an eighth of the base (and more than 64 items) changed, or when the base appeared or disappeared.
    /// - Returns: `false` only when the view's document certainly did not change (no changed base item was or is
    ///   among the items shown or before them, no header of a shown section changed, and the kind and cells did not change);
    ///   `true` otherwise (possibly also when nothing changed).
    /// - Complexity: O(*k* log *m* + *k* *c*) for *k* changed items, plus O(*n*) once per base revision for the
    ///   shared position maps of ``ViewBase``, and O(*v*) when a shown section's header changed; a rebuild costs
    ///   O(*n* log *n*).
    @discardableResult
    public mutating func update(to new: ViewBase, diff: ListDiff? = nil) -> Bool {
        let old = base
        if old === new { return false }
        guard let oldDocument = old.document, let newDocument = new.document else {
            if old.document == nil, new.document == nil {
                base = new
                return false
            }
            return rebuild(to: new)
        }
        let diff = diff ?? ListDiff(from: oldDocument, to: newDocument)
        guard diff.sections.moved.isEmpty, let changed = Self.changedIDs(diff, old: oldDocument),
            changed.count <= max(64, newDocument.itemCount / 8)
        else { return rebuild(to: new) }

        var changes = oldDocument.cells != newDocument.cells
            || definition.kind(ofBase: oldDocument.kind) != definition.kind(ofBase: newDocument.kind)
        if case .keep = definition.sections, !changes, !diff.sections.updated.isEmpty {
            let updated = Set(diff.sections.updated.map(\.header.id))
            changes = matches.prefix(definition.window.upperBound) { updated.contains($0.section) }
        }

        let oldPositions = old.positions
        for id in changed {
            guard let (place, _, _, _) = placeOfMatch(id, in: oldDocument, positions: oldPositions) else { continue }
            guard matches.match(at: place)?.item.id == id else {
                // The diff does not fit what the index holds (not ListDiff(from: its base, to: new)): start over. Some
                // matches are already gone, so the document before cannot be compared: say it changed.
                _ = rebuild(to: new)
                return true
            }
            if place.rank < definition.window.upperBound { changes = true }
            matches.remove(at: place)
        }
        let newPositions = new.positions
        for id in changed {
            guard let (place, item, section, keys) = placeOfMatch(id, in: newDocument, positions: newPositions) else { continue }
            if place.rank < definition.window.upperBound { changes = true }
            matches.insert(definition.match(item, section: section, keys: keys), at: place)
        }
        base = new
        return changes
    }

    // MARK: - Helpers

    /// Where item `id` of `document` (at `positions`, that document's map) sorts among the matches, with the item,
    /// its section's id and its sort values; `nil` when it is not in the document or does not match the filter.
    private func placeOfMatch(
        _ id: String, in document: ListDocument, positions: [String: ViewBase.Position]
    ) -> (place: ViewMatchList.Place, item: ListItem, section: String, keys: [ViewSortValue])? {
        guard let position = positions[id] else { return nil }
        let section = document.sections[position.section]
        let item = section.items[position.item]
        guard definition.matches(item, section: section.id) else { return nil }
        let keys = definition.sortValues(of: item, section: section.id)
        let place = matches.place { isBefore($0, keys: keys, ordinal: position.ordinal, positions: positions) }
        return (place, item, section.id, keys)
    }

    /// Whether `match` sorts before the item with sort values `keys` at base position `ordinal`.
    private func isBefore(_ match: ViewMatch, keys: [ViewSortValue], ordinal: Int, positions: [String: ViewBase.Position]) -> Bool {
        let order = definition.compareSortValues(match.keys, keys)
        if order != 0 { return order < 0 }
        return (positions[match.item.id]?.ordinal ?? Int.max) < ordinal
    }

    /// Rebuilds from scratch; `true` when the document differs from before.
    private mutating func rebuild(to new: ViewBase) -> Bool {
        let before = document(viewID: "", revision: 0)
        base = new
        matches = Self.build(definition, over: new.document, maximumChunk: matches.maximumChunk)
        return document(viewID: "", revision: 0) != before
    }

    /// All matches of `definition` over `document`, in view order. O(*n* log *n*).
    private static func build(_ definition: ViewDefinition, over document: ListDocument?, maximumChunk: Int) -> ViewMatchList {
        var found: [(match: ViewMatch, ordinal: Int)] = []
        var ordinal = 0
        for section in document?.sections ?? [] {
            for item in section.items {
                if definition.matches(item, section: section.id) {
                    let keys = definition.sortValues(of: item, section: section.id)
                    found.append((definition.match(item, section: section.id, keys: keys), ordinal))
                }
                ordinal += 1
            }
        }
        if !definition.sort.isEmpty {
            found.sort { lhs, rhs in
                let order = definition.compareSortValues(lhs.match.keys, rhs.match.keys)
                return order != 0 ? order < 0 : lhs.ordinal < rhs.ordinal
            }
        }
        return ViewMatchList(sorted: found.map(\.match), maximumChunk: maximumChunk)
    }

    /// The ids of the items `diff` changes; `nil` when the diff does not fit `old`.
    private static func changedIDs(_ diff: ListDiff, old: ListDocument) -> Set<String>? {
        func oldID(_ path: ItemPath) -> String? {
            guard old.sections.indices.contains(path.section), old.sections[path.section].items.indices.contains(path.item)
            else { return nil }
            return old.sections[path.section].items[path.item].id
        }
        var changed = Set<String>()
        for path in diff.items.deleted {
            guard let id = oldID(path) else { return nil }
            changed.insert(id)
        }
        for move in diff.items.moved {
            guard let id = oldID(move.from) else { return nil }
            changed.insert(id)
        }
        for insertion in diff.items.inserted { changed.insert(insertion.item.id) }
        for update in diff.items.updated { changed.insert(update.item.id) }
        for index in diff.sections.deleted {
            guard old.sections.indices.contains(index) else { return nil }
            for item in old.sections[index].items { changed.insert(item.id) }
        }
        for insertion in diff.sections.inserted {
            for item in insertion.section.items { changed.insert(item.id) }
        }
        return changed
    }
}

extension ViewDefinition {
    /// The entry of a matching item, with its `by` text computed once, here, rather than at every document.
    fileprivate func match(_ item: ListItem, section: String, keys: [ViewSortValue]) -> ViewMatch {
        var group: String?
        if case .by(let path) = sections { group = Self.groupText(ViewPath.resolve(path, in: item, section: section)) }
        return ViewMatch(item: item, section: section, keys: keys, group: group)
    }
}
