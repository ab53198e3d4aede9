/// An in-memory copy of a list that performs batches exactly as docs/api.md says (Applying a batch diff).
///
/// Tests replay diffs through it (`apply(diff(a, b), a) == b`), and a Swift client can keep its own replica
/// beside a view. Every index is checked: a batch that does not fit throws and leaves the document unchanged.
public struct ReplicaTarget: ListUpdateTarget, Sendable {
    /// The document as the replica holds it.
    public var document: ListDocument

    private var batch = RecordedBatch()

    /// Creates a replica holding `document` (pass it with `consume` to let batches change it in place).
    public init(document: consuming ListDocument) {
        self.document = document
    }

    public mutating func beginUpdates() { batch = RecordedBatch() }
    public mutating func deleteSections(_ indexes: [Int]) { batch.deletedSections += indexes }
    public mutating func insertSections(_ insertions: [SectionInsertion]) { batch.insertedSections += insertions }
    public mutating func moveSection(from: Int, to: Int) { batch.movedSections.append(Move(from: from, to: to)) }
    public mutating func deleteItems(at paths: [ItemPath]) { batch.deletedItems += paths }
    public mutating func insertItems(_ insertions: [ItemInsertion]) { batch.insertedItems += insertions }
    public mutating func moveItem(from: ItemPath, to: ItemPath) { batch.movedItems.append(Move(from: from, to: to)) }

    /// Performs the batch (steps 1 to 3 of the normative procedure).
    /// - Complexity: O(*n* + *k*) for *n* items and *k* operations.
    public mutating func endUpdates() throws(DiffApplicationError) {
        try batch.perform(on: &document.sections)
    }

    /// Step 4: replaces section headers at new indexes.
    public mutating func updateSectionHeaders(_ updates: [SectionUpdate]) throws(DiffApplicationError) {
        try ReplicaUpdates.updateHeaders(updates, in: &document.sections)
    }

    /// Step 4: replaces items at new paths.
    public mutating func reconfigureItems(_ updates: [ItemUpdate]) throws(DiffApplicationError) {
        try ReplicaUpdates.reconfigure(updates, in: &document.sections)
    }
}

extension ListDiff {
    /// Checks the diff's `counts.from` against what a client shows, before it hands the diff to a view.
    /// - Throws: `DiffApplicationError` when they differ.
    public func check(against document: ListDocument) throws(DiffApplicationError) {
        try check(counts: document.sectionCounts)
    }

    /// Checks `counts.from` against the item count of each section a replica holds.
    func check(counts: [Int]) throws(DiffApplicationError) {
        guard fromCounts == counts else {
            throw DiffApplicationError("counts.from \(fromCounts) differ from the document's \(counts)")
        }
    }
}
