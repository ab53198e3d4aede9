import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Logging
import Metrics
import Synchronization
import TextFormats

/// Lists kept equal to a query over another list: attaching, changing, reading and detaching views, and keeping
/// every view up to date with its base.
///
/// When updates happen (all on the write pool, never on a loop):
/// - after every write of a base that this instance commits (``ViewRegistry/baseChanged(_:outcome:)``, called
///   once the write is acknowledged to the store), folded per base by ``ViewScheduler``;
/// - at once when a view is attached or changed (the answer carries the `basedOn` it reached);
/// - by a sweep every `viewSweepSeconds`, which reads every view's progress from the store and schedules the bases
///   of those behind: views whose updater died (a process killed between a base's commit and its views'), or whose
///   base another instance wrote without updating them. On start the sweep runs at once, so views catch up after
///   a crash.
final class ViewService: Sendable {
    private let context: ServiceContext
    private let scheduler: ViewScheduler
    private let running = Mutex(true)

    init(context: ServiceContext) {
        self.context = context
        scheduler = ViewScheduler(execute: { [context] job in context.viewPool.execute(job) }) { [context] updater, hint in
            let views = context.views.views(of: updater.base)
            guard !views.isEmpty else { return }
            do {
                try updater.update(views, hint: hint, context: context)
            } catch {
                context.logger.warning("the views of a base could not be updated", metadata: ["base": "\(updater.base)", "error": "\(error)"])
            }
        }
        context.views.setScheduler { [scheduler] base, outcome in scheduler.schedule(base, outcome: outcome) }
    }

    // MARK: - Requests

    /// Makes `list` a view with the definition in `body`, or changes its definition, and brings it up to date at
    /// once.
    /// - Parameter mayRead: Checks that the request may read the base (throws 401/403 when not).
    /// - Returns: Whether it became a view (rather than changed), and the served definition with `basedOn`.
    func attach(
        _ list: String, body: JSONValue, mayRead: (String) throws(ServiceError) -> Void
    ) throws(ServiceError) -> (created: Bool, served: JSONValue) {
        let limits = context.repository.documentLimits
        // A body that is no object is malformed (400), as for a source or a revert; a wrong member is a 422.
        guard case .object = body else { throw .badRequest("a view definition is a JSON object {\"of\", \"where\", \"sort\", \"limit\", \"sections\"}") }
        let definition: ViewDefinition
        do {
            definition = try ViewDefinition(json: body, viewID: list, limits: limits, definitionLimits: context.configuration.definitionLimits)
        } catch {
            throw .invalidMember(error.detail, pointer: error.pointer)
        }
        try mayRead(definition.base)
        let stored: (created: Bool, view: StoredView)
        do {
            if try context.viewStore.view(definition.base) != nil {
                throw ServiceError.invalidMember(
                    "list \"\(definition.base)\" is itself a view: a view's base must be a list written directly or by a source", pointer: "/of")
            }
            if try context.sourceStore.source(list) != nil {
                throw ServiceError.fedElsewhere(
                    "list \"\(list)\" is fed by a source: a list cannot have both a source and a view; detach the source first (DELETE /v1/lists/\(list)/source)")
            }
            let dependents = try context.viewStore.views(of: list)
            if let first = dependents.first {
                throw ServiceError.fedElsewhere(
                    "list \"\(list)\" is the base of \(dependents.count == 1 ? "view" : "\(dependents.count) views, such as") \"\(first.list)\": a base cannot be a view itself")
            }
            stored = try context.viewStore.attachView(
                list: list, base: definition.base, definition: JSONWriter.string(of: definition.jsonValue), maximumViews: context.configuration.maxViews)
        } catch let error as ServiceError {
            throw error
        } catch let error as StoreError {
            throw ServiceError.from(error)
        } catch {
            throw .storage("\(error)")
        }
        // Direct writes are refused from now on (after the commit, so no check can record the list again).
        context.directlyWritten.remove(list)
        context.views.put(stored.view)
        let basedOn = try bringNow(stored.view, definition: definition)
        // The base's updater builds its own index for this generation in the background.
        scheduler.schedule(definition.base, outcome: nil)
        return (stored.created, Self.served(definition: definition.jsonValue, basedOn: basedOn))
    }

    /// Computes the view over its base as it is now and writes it.
    /// - Returns: The base revision the view holds now (0 for no base).
    private func bringNow(_ view: StoredView, definition: ViewDefinition) throws(ServiceError) -> Int {
        let repository = context.repository
        let head: ListHead?
        let document: ListDocument?
        do throws(EngineError) {
            head = try repository.head(view.base)
            document = try ViewUpdater.document(of: view.base, at: head, hint: nil, repository: repository)
        } catch {
            throw ServiceError(error)
        }
        let step = ViewStep(generation: view.generation, baseStep: ViewStep.baseStep(of: head))
        let index = ViewIndex(definition: definition, base: ViewBase(document), limits: repository.documentLimits)
        if ViewUpdater.bring(view.list, of: view.base, to: step, index: index, context: context) == nil {
            // Another instance's update (or change) of this view came first: what it reached is served.
            return ViewStep.basedOn(try self.view(view.list)?.baseStep ?? step.baseStep)
        }
        return ViewStep.basedOn(step.baseStep)
    }

    /// The view `list` is, if it is one. Read while no write of the view's list is under way here, so that its
    /// step never runs ahead of the revision this instance serves (a view's write commits both at once).
    func view(_ list: String) throws(ServiceError) -> StoredView? {
        do {
            return try context.repository.withoutWritesUnderWay(list) { () throws(StoreError) in try context.viewStore.view(list) }
        } catch {
            throw ServiceError.from(error)
        }
    }

    /// Detaches the view `list` (the list stays, and may be written directly again); `false` when it is no view.
    func detach(_ list: String) throws(ServiceError) -> Bool {
        let detached: Bool
        do {
            detached = try context.viewStore.detachView(list)
        } catch {
            throw ServiceError.from(error)
        }
        context.views.remove(list)
        return detached
    }

    /// The definition as served: `{"of","where","sort","limit","sections","basedOn"}`.
    static func served(_ view: StoredView) -> JSONValue {
        served(definition: json(view.definition), basedOn: ViewStep.basedOn(view.baseStep))
    }

    private static func served(definition: JSONValue, basedOn: Int) -> JSONValue {
        guard case .object(var object) = definition else { return definition }
        object["basedOn"] = .number(JSONNumber(basedOn))
        return .object(object)
    }

    /// A stored JSON text as a value (`.null` when it cannot be read).
    static func json(_ text: String) -> JSONValue {
        (try? JSONReader().read(text)) ?? .null
    }

    // MARK: - Sweeping

    /// Starts the sweeps: one at once, then one every `viewSweepSeconds`.
    func start() {
        context.views.setRefresher { [self] in context.viewPool.execute { [self] in sweepOnce() } }
        context.viewPool.execute { [self] in sweep() }
    }

    /// Stops the sweeps (updates under way finish).
    func shutdown() {
        running.withLock { $0 = false }
    }

    /// Sweeps, then schedules the next sweep.
    private func sweep() {
        sweepOnce()
        if running.withLock({ $0 }) {
            context.after(context.configuration.viewSweepSeconds) { [self] in context.viewPool.execute { [self] in sweep() } }
        }
    }

    /// Reads every view's progress from the store, refreshes the registry, and schedules the bases whose views are
    /// behind them.
    func sweepOnce() {
        let generation = context.views.generation
        let all: [StoredView]
        do {
            all = try context.viewStore.allViews()
        } catch {
            context.logger.warning("cannot read the views", metadata: ["error": "\(error)"])
            return
        }
        context.views.replaceAll(all, readIn: generation)
        Gauge(label: "listdelta_views").record(all.count)
        let byBase = Dictionary(grouping: all, by: \.base)
        scheduler.retain(only: Set(byBase.keys))
        for (base, views) in byBase {
            do {
                let step = ViewStep.baseStep(of: try context.repository.head(base))
                if views.contains(where: { $0.baseStep < step }) { scheduler.schedule(base, outcome: nil) }
            } catch {
                context.logger.warning("cannot read a view's base", metadata: ["base": "\(base)", "error": "\(error)"])
                return
            }
        }
    }
}
