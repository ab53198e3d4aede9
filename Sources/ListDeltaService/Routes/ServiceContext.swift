import Dispatch
import HTTPServer
import ListDeltaCore
import Logging

/// What every route shares: the repository, the watchers, rendered bodies, the configuration.
final class ServiceContext: Sendable {
    let configuration: ServiceConfiguration
    let repository: ListRepository
    let hub = ChangeHub()
    let logger: Logger
    /// Rendered documents (by revision) and diffs (by from, to and format).
    let documentBodies: LRUCache<RevisionKey, RenderedBody>
    let diffBodies: LRUCache<DiffKey, RenderedBody>
    /// Where slow work runs (store writes, rebuilding revisions, diffs), off the event loops.
    private let work = DispatchQueue(label: "listdelta.work", qos: .userInitiated, attributes: .concurrent)

    init(configuration: ServiceConfiguration, repository: ListRepository, logger: Logger) {
        self.configuration = configuration
        self.repository = repository
        self.logger = logger
        documentBodies = LRUCache(budget: configuration.cacheBytes / 4)
        diffBodies = LRUCache(budget: configuration.cacheBytes / 4)
    }

    /// Runs `body` on the work queue and answers with what it returns (or its error as a problem).
    func perform(_ responder: HTTPResponder, _ body: @escaping @Sendable () throws(ServiceError) -> HTTPResponse) {
        work.async {
            responder.respond(Self.answer(body))
        }
    }

    /// Runs `body` on the work queue.
    func async(_ body: @escaping @Sendable () -> Void) {
        work.async(execute: body)
    }

    /// Runs `body` after `seconds` on the work queue.
    func after(_ seconds: Double, _ body: @escaping @Sendable () -> Void) {
        work.asyncAfter(deadline: .now() + seconds, execute: body)
    }

    /// `body`'s response, or the problem response of its error.
    static func answer(_ body: () throws(ServiceError) -> HTTPResponse) -> HTTPResponse {
        do {
            return try body()
        } catch {
            return Responses.problem(error)
        }
    }

    /// The rendered document at `revision`.
    func renderedDocument(_ document: ListDocument) -> RenderedBody {
        let key = RevisionKey(list: document.id, revision: document.revision)
        if let cached = documentBodies.value(for: key) { return cached }
        let rendered = RenderedBody(document.jsonValue)
        documentBodies.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }

    /// The rendered diff of `list` from `from` to `to`, computed once.
    func renderedDiff(_ list: LiveList, from: Int, to: Int, format: DiffFormat) throws(ServiceError) -> RenderedBody {
        let key = DiffKey(list: list.head.id, from: from, to: to, format: format)
        if let cached = diffBodies.value(for: key) { return cached }
        let old = try repository.document(list.head.id, revision: from, head: list.head)
        let new = to == list.document.revision ? list.document : try repository.document(list.head.id, revision: to, head: list.head)
        let rendered = Self.render(ListDiff(from: old, to: new), from: old, to: new, format: format)
        diffBodies.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }

    /// Renders a diff in a format; a JSON Patch needs both documents.
    static func render(_ diff: ListDiff, from old: ListDocument, to new: ListDocument, format: DiffFormat) -> RenderedBody {
        switch format {
        case .batch: return RenderedBody(diff.jsonValue)
        case .jsonPatch: return RenderedBody(JSONPatch(diff: diff, from: old, to: new).jsonValue)
        }
    }

    /// Caches a write's own diff, so polls and streams that follow it get it without recomputing.
    func rememberDiff(of outcome: WriteOutcome) -> RenderedBody {
        let rendered = RenderedBody(outcome.diff.jsonValue)
        let key = DiffKey(list: outcome.document.id, from: outcome.previous.revision, to: outcome.document.revision, format: .batch)
        diffBodies.set(rendered, for: key, cost: rendered.cost)
        return rendered
    }
}
