extension ListDiff {
    /// The minimal batch diff that turns `old` into `new`, forwards or backwards in revisions.
    ///
    /// Sections and items are matched by id. An item that stays in a surviving section of the same id keeps
    /// its place unless it must move: per section, the items not in a longest increasing subsequence of their
    /// old positions move, and so do items that change section. No operation names an index path inside a
    /// deleted or inserted section; items leaving a deleted section are inserted, items entering an inserted
    /// section are deleted. Updates are reported only where content changed.
    ///
    /// Both documents must be valid (ids unique, as `DataProviderFactory` guarantees).
    /// - Complexity: O(*n* log *n*) time and O(*n*) memory for *n* items in both documents; O(*n*) when no item
    ///   moves inside a section.
    public init(from old: ListDocument, to new: ListDocument) {
        self.init(listID: new.id, from: old.revision, to: new.revision, fromCounts: old.sectionCounts, toCounts: new.sectionCounts)
        let matching = SectionMatching(old: old.sections, new: new.sections, into: &sections)
        var itemDiffer = ItemDiffer(old: old.sections, new: new.sections, matching: matching)
        itemDiffer.fill(&items)
    }
}

