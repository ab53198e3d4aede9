public import ListDeltaCore
import ListDeltaStorage
import Tracing

/// Documents and diffs rendered once, in both codings, and kept for every client that asks for the same bytes.
///
/// A revision never changes, so neither does its rendering nor a diff between two revisions: entries are evicted
/// only for room (least recently used first, within the byte budget), or when their list is deleted.
public final class RenderCache: Sendable {
    private let repository: ListRepository
    /// Rendered documents by revision, and diffs by from, to and format.
    private let documents: LRUCache<RevisionKey, RenderedBody>
    private let diffs: LRUCache<DiffKey, RenderedBody>

    /// - Parameter budget: Memory for each of the two caches (documents, diffs), in bytes.
    public init(repository: ListRepository, budget: Int) {
        self.repository = repository
        documents = LRUCache(budget: budget)
        diffs = LRUCache(budget: budget)
    }

    /// The rendered document at `revision`, when it is in memory (any thread, the loops included).
    public func cachedDocument(_ id: String, revision: Int) -> RenderedBody? {
        documents.value(for: RevisionKey(list: id, revision: revision))
    }

    /// The rendered diff `key` names, when it is in memory (any thread, the loops included).
    public func cachedDiff(_ key: DiffKey) -> RenderedBody? {
        diffs.value(for: key)
    }

    /// `document` rendered, once.
    /// - Complexity: O(1) when cached; else O(*n*) to render and compress *n* bytes.
    public func document(_ document: ListDocument) -> RenderedBody {
        let key = RevisionKey(list: document.id, revision: document.revision)
        if let cached = Self.found(documents.value(for: key)) { return cached }
        repository.loopCheck.refuse("rendering a document")
        let rendered = Spans.with("listdelta.render") { _ in RenderedBody(document.jsonValue) }
        documents.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }

    /// The diff of `list` from `from` to `to` rendered in `format`, computed once.
    /// - Throws: ``EngineError`` when a revision cannot be read (not retained, the store failed).
    public func diff(_ list: LiveList, from: Int, to: Int, format: DiffFormat) throws(EngineError) -> RenderedBody {
        let key = DiffKey(list: list.head.id, from: from, to: to, format: format)
        if let cached = Self.found(diffs.value(for: key)) { return cached }
        repository.loopCheck.refuse("computing a diff")
        let old = try repository.document(list.head.id, revision: from, head: list.head)
        let new = to == list.document.revision ? list.document : try repository.document(list.head.id, revision: to, head: list.head)
        let rendered = Self.render(ListDiff(from: old, to: new), from: old, to: new, format: format)
        diffs.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }

    /// Renders a diff in a format (a JSON Patch needs both documents), in a `listdelta.render` span.
    private static func render(_ diff: ListDiff, from old: ListDocument, to new: ListDocument, format: DiffFormat) -> RenderedBody {
        Spans.with("listdelta.render") { span in
            if span.isRecording { span.attributes["listdelta.diff.size"] = diff.operationCount }
            switch format {
            case .batch: return RenderedBody(diff.jsonValue)
            case .jsonPatch: return RenderedBody(JSONPatch(diff: diff, from: old, to: new).jsonValue)
            }
        }
    }

    /// `cached`, after noting on the current span (a traced request's) whether the rendering was in memory.
    private static func found(_ cached: RenderedBody?) -> RenderedBody? {
        Spans.current?.attributes["listdelta.cache.hit"] = cached != nil
        return cached
    }

    /// The document that `key` names (a list's revision, or a derived list's: a query's result), rendered from
    /// `make` once. `make` runs only when the rendering is not in memory.
    /// - Complexity: O(1) when cached; else `make`'s cost plus O(*n*) to render and compress *n* bytes.
    public func document(_ key: RevisionKey, _ make: () throws(EngineError) -> JSONValue) throws(EngineError) -> RenderedBody {
        if let cached = Self.found(documents.value(for: key)) { return cached }
        repository.loopCheck.refuse("rendering a document")
        let made = try make()
        let rendered = Spans.with("listdelta.render") { _ in RenderedBody(made) }
        documents.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }

    /// The diff that `key` names between two documents that `make` reads (for a derived list: a query's results),
    /// rendered once in `key.format`.
    /// - Complexity: O(1) when cached; else `make`'s cost plus the diff's (``ListDiff/init(from:to:)``).
    public func diff(_ key: DiffKey, _ make: () throws(EngineError) -> (old: ListDocument, new: ListDocument)) throws(EngineError) -> RenderedBody {
        if let cached = Self.found(diffs.value(for: key)) { return cached }
        repository.loopCheck.refuse("computing a diff")
        let (old, new) = try make()
        let rendered = Self.render(ListDiff(from: old, to: new), from: old, to: new, format: key.format)
        diffs.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }

    /// Keeps a write's own diff, so that polls and streams that follow it get it without computing it again.
    public func remember(diffOf outcome: WriteOutcome) -> RenderedBody {
        let key = DiffKey(list: outcome.document.id, from: outcome.previous.revision, to: outcome.document.revision, format: .batch)
        diffs.set(outcome.renderedDiff, for: key, cost: outcome.renderedDiff.cost)
        return outcome.renderedDiff
    }

    /// Forgets the diffs of a deleted list, and the documents and diffs derived from it (keys that start with its
    /// id and a NUL, as queries' do): a list created again under its id numbers its revisions anew.
    public func forgetDiffs(of id: String) {
        let derived = id + "\u{0}"
        diffs.removeAll { $0.list == id || $0.list.hasPrefix(derived) }
        documents.removeAll { $0.list.hasPrefix(derived) }
    }

    /// The bytes held by both caches, for metrics.
    public var usageBytes: Int { documents.usage.cost + diffs.usage.cost }
}
