/// Replays a run of diffs on one document, each at the cost of what it changes.
///
/// ``ListDiff/apply(to:)`` passes over every item of a section it touches, which is right for one diff but makes
/// a run of them cost O(*d* · *n*): 900 ten-edit diffs on a 100,000-item list are 900 passes. The replayer holds
/// the sections in chunks of a few hundred items (``ChunkedItems``), so a diff of *k* operations costs about
/// O(*k* · √*n*), and the document is assembled once, at the end.
///
/// ```swift
/// var replayer = DiffReplayer(document)
/// for diff in diffs { try replayer.apply(diff) }
/// let rebuilt = replayer.document
/// ```
public struct DiffReplayer: Sendable {
    private let id: String
    private var sections: [ChunkedSection]
    /// The revision reached: the last diff's `to`.
    public private(set) var revision: Int
    /// The list kind; a diff does not carry it, so a caller that knows it sets it.
    public var kind: ListKind
    /// The cell registry; a diff does not carry it, so a caller that knows it sets it.
    public var cells: [String: String]?

    /// Starts from `document`.
    /// - Complexity: O(*n*) for *n* items.
    public init(_ document: ListDocument) {
        id = document.id
        revision = document.revision
        kind = document.kind
        cells = document.cells
        sections = document.sections.map { ChunkedSection(header: $0.header, items: ChunkedItems($0.items)) }
    }

    /// Applies `diff` by the procedure of docs/api.md (Applying a batch diff), after checking its `counts.from`.
    ///
    /// The sections change in place (keeping a copy to roll back to would copy every chunk the diff touches).
    /// - Throws: `DiffApplicationError` when the diff does not fit. A batch that does not fit changes nothing,
    ///   but an update that does not fit is found after the batch was performed: after an error, start again
    ///   from a document.
    /// - Complexity: O(*s* + *k* · (*c* + *n*/*c*) + *k* log *k*) for *s* sections, *k* operations and chunks of
    ///   *c* items.
    public mutating func apply(_ diff: ListDiff) throws(DiffApplicationError) {
        try diff.check(counts: sections.map(\.items.count))
        try RecordedBatch(diff).perform(on: &sections)
        try ReplicaUpdates.updateHeaders(diff.sections.updated, in: &sections)
        try ReplicaUpdates.reconfigure(diff.items.updated, in: &sections)
        revision = diff.to
    }

    /// The document reached.
    /// - Complexity: O(*n*).
    public var document: ListDocument {
        ListDocument(
            id: id, kind: kind, revision: revision, cells: cells,
            sections: sections.map { ListSection(header: $0.header, items: $0.items.array) })
    }
}
