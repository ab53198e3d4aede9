extension ViewDefinition {
    /// The view's document over `base` (`nil`: the base is missing or deleted), computed directly from the rules:
    /// every base item filtered by ``conditions``, stably sorted by ``sort`` (ties in base order), the first
    /// ``offset`` skipped, the next ``limit`` taken and grouped as ``sections`` says. Id `viewID`, revision `revision`, the base's `cells`.
    /// - Complexity: O(*n* log *n*) for *n* base items.
    public func evaluate(over base: ListDocument?, viewID: String, revision: Int, limits: DocumentLimits) -> ListDocument {
        var found: [(shown: ViewShownItem, keys: [ViewSortValue], ordinal: Int)] = []
        var ordinal = 0
        for section in base?.sections ?? [] {
            for item in section.items {
                if matches(item, section: section.id) {
                    found.append((ViewShownItem(item: item, section: section.id), sortValues(of: item, section: section.id), ordinal))
                }
                ordinal += 1
            }
        }
        if !sort.isEmpty {
            found.sort { lhs, rhs in
                let order = compareSortValues(lhs.keys, rhs.keys)
                return order != 0 ? order < 0 : lhs.ordinal < rhs.ordinal
            }
        }
        let shown = found.dropFirst(offset).prefix(limit).map(\.shown)
        return document(grouping: shown, base: base, viewID: viewID, revision: revision, limits: limits)
    }
}
