public import ListDeltaCore
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
///   once the write is acknowledged to the store), folded per base by ``BaseScheduler``;
/// - at once when a view is attached or changed (the answer carries the `basedOn` it reached);
/// - by a sweep every `viewSweepSeconds`, which reads every view's progress from the store and schedules the bases
///   of those behind: views whose updater died (a process killed between a base's commit and its views'), or whose
///   base another instance wrote without updating them. On start the sweep runs at once, so views catch up after
///   a crash.
public final class ViewKeeper: Sendable {
    /// The application it keeps views of (weakly: the application owns this, and a sweep stops once it is gone).
    private weak let app: Application?
    private let scheduler: BaseScheduler<ViewUpdater>
    private let running = Mutex(true)

    init(app: Application) {
        self.app = app
        let pool = app.pools.view
        scheduler = BaseScheduler(execute: { job in pool.execute(job) }, make: ViewUpdater.init(base:)) { [weak app] updater, hint in
            guard let app else { return }
            let views = app.viewRegistry.views(of: updater.base)
            guard !views.isEmpty else { return }
            do {
                try updater.update(views, hint: hint, app: app)
            } catch {
                app.logger.warning("the views of a base could not be updated", metadata: ["base": "\(updater.base)", "error": "\(error)"])
            }
        }
        app.viewRegistry.setScheduler { [scheduler] base, outcome in scheduler.schedule(base, outcome: outcome) }
    }

    // MARK: - Requests

    /// Reads and checks a definition for the view `list` (`PUT .../view`'s body), within the configured bounds.
    /// - Throws: ``ApplicationError/malformedBody(_:)`` for a body that is no object,
    ///   ``ApplicationError/invalidMember(_:pointer:)`` naming the member that is wrong.
    public func definition(from body: JSONValue, for list: String) throws(ApplicationError) -> ViewDefinition {
        let app = try app.orStopped()
        // A body that is no object is malformed, as for a source or a revert; a wrong member is another error.
        guard case .object = body else {
            throw .malformedBody("a view definition is a JSON object {\"of\", \"where\", \"sort\", \"offset\", \"limit\", \"sections\"}")
        }
        do {
            return try ViewDefinition(
                json: body, viewID: list, limits: app.repository.documentLimits, definitionLimits: app.options.definitionLimits)
        } catch {
            throw .invalidMember(error.detail, pointer: error.pointer)
        }
    }

    /// Makes `list` a view with `definition` (from ``definition(from:for:)``), or changes its definition, and
    /// brings it up to date at once.
    /// - Returns: Whether it became a view (rather than changed), and the served definition with `basedOn`.
    public func attach(_ list: String, definition: ViewDefinition) throws(ApplicationError) -> (created: Bool, served: JSONValue) {
        let app = try app.orStopped()
        let stored: (created: Bool, view: StoredView)
        do {
            if try app.viewStore.view(definition.base) != nil {
                throw ApplicationError.invalidMember(
                    "list \"\(definition.base)\" is itself a view: a view's base must be a list written directly or by a source", pointer: "/of")
            }
            if try app.sourceStore.source(list) != nil {
                throw ApplicationError.fedElsewhere(
                    "list \"\(list)\" is fed by a source: a list cannot have both a source and a view; detach the source first (DELETE /v1/lists/\(list)/source)")
            }
            let dependents = try app.viewStore.views(of: list)
            if let first = dependents.first {
                throw ApplicationError.fedElsewhere(
                    "list \"\(list)\" is the base of \(dependents.count == 1 ? "view" : "\(dependents.count) views, such as") \"\(first.list)\": a base cannot be a view itself")
            }
            stored = try app.viewStore.attachView(
                list: list, base: definition.base, definition: JSONWriter.string(of: definition.jsonValue), maximumViews: app.options.maximumViews)
        } catch let error as ApplicationError {
            throw error
        } catch let error as StoreError {
            throw ApplicationError.from(error)
        } catch {
            throw .engine(.storage("\(error)"))
        }
        // Direct writes are refused from now on (after the commit, so no check can record the list again).
        app.directlyWritten.remove(list)
        app.viewRegistry.put(stored.view)
        let basedOn = try bringNow(stored.view, definition: definition)
        // The base's updater builds its own index for this generation in the background.
        scheduler.schedule(definition.base, outcome: nil)
        return (stored.created, Self.served(definition: definition.jsonValue, basedOn: basedOn))
    }

    /// Computes the view over its base as it is now and writes it.
    /// - Returns: The base revision the view holds now (0 for no base).
    private func bringNow(_ view: StoredView, definition: ViewDefinition) throws(ApplicationError) -> Int {
        let app = try app.orStopped()
        let repository = app.repository
        let head: ListHead?
        let document: ListDocument?
        do throws(EngineError) {
            head = try repository.head(view.base)
            document = try ViewUpdater.document(of: view.base, at: head, hint: nil, repository: repository)
        } catch {
            throw .engine(error)
        }
        let step = ViewStep(generation: view.generation, baseStep: ViewStep.baseStep(of: head))
        let index = ViewIndex(definition: definition, base: ViewBase(document), limits: repository.documentLimits)
        if ViewUpdater.bring(view.list, of: view.base, to: step, index: index, app: app) == nil {
            // Another instance's update (or change) of this view came first: what it reached is served.
            return ViewStep.basedOn(try self.view(view.list)?.baseStep ?? step.baseStep)
        }
        return ViewStep.basedOn(step.baseStep)
    }

    /// The view `list` is, if it is one. Read while no write of the view's list is under way here, so that its
    /// step never runs ahead of the revision this instance serves (a view's write commits both at once).
    func view(_ list: String) throws(ApplicationError) -> StoredView? {
        let app = try app.orStopped()
        do {
            return try app.repository.withoutWritesUnderWay(list) { () throws(StoreError) in try app.viewStore.view(list) }
        } catch {
            throw ApplicationError.from(error)
        }
    }

    /// The view `list` is, as served (`GET .../view`): its definition and `basedOn`; `nil` when it is no view.
    public func served(_ list: String) throws(ApplicationError) -> JSONValue? {
        let limits = try app.orStopped().repository.documentLimits
        return try view(list).map { Self.served($0, limits: limits) }
    }

    /// Detaches the view `list` (the list stays, and may be written directly again); `false` when it is no view.
    public func detach(_ list: String) throws(ApplicationError) -> Bool {
        let app = try app.orStopped()
        let detached: Bool
        do {
            detached = try app.viewStore.detachView(list)
        } catch {
            throw ApplicationError.from(error)
        }
        app.viewRegistry.remove(list)
        return detached
    }

    /// The definition as served: `{"of","where","sort","offset","limit","sections","basedOn"}`. It is read again
    /// rather than served as stored, so that one stored by a release before `offset` is served in today's form.
    static func served(_ view: StoredView, limits: DocumentLimits) -> JSONValue {
        let stored = JSONValue(stored: view.definition)
        let definition = try? ViewDefinition(json: stored, viewID: view.list, limits: limits, definitionLimits: .unlimited)
        return served(definition: definition?.jsonValue ?? stored, basedOn: ViewStep.basedOn(view.baseStep))
    }

    private static func served(definition: JSONValue, basedOn: Int) -> JSONValue {
        guard case .object(var object) = definition else { return definition }
        object["basedOn"] = .number(JSONNumber(basedOn))
        return .object(object)
    }


    // MARK: - Sweeping

    /// Starts the sweeps: one at once, then one every `viewSweepSeconds`.
    func start() {
        guard let app else { return }
        let pool = app.pools.view
        app.viewRegistry.setRefresher { [self] in pool.execute { [self] in sweepOnce() } }
        pool.execute { [self] in sweep() }
    }

    /// Stops the sweeps (updates under way finish).
    func shutdown() {
        running.withLock { $0 = false }
    }

    /// Sweeps, then schedules the next sweep.
    private func sweep() {
        sweepOnce()
        if running.withLock({ $0 }) {
            guard let app else { return }
            let pool = app.pools.view
            app.after(app.options.viewSweepSeconds) { [self] in pool.execute { [self] in sweep() } }
        }
    }

    /// Reads every view's progress from the store, refreshes the registry, and schedules the bases whose views are
    /// behind them.
    func sweepOnce() {
        guard let app else { return }
        let generation = app.viewRegistry.generation
        let all: [StoredView]
        do {
            all = try app.viewStore.allViews()
        } catch {
            app.logger.warning("cannot read the views", metadata: ["error": "\(error)"])
            return
        }
        app.viewRegistry.replaceAll(all, readIn: generation)
        Gauge(label: "listdelta_views").record(all.count)
        let byBase = Dictionary(grouping: all, by: \.base)
        scheduler.retain(only: Set(byBase.keys))
        for (base, views) in byBase {
            do {
                let step = ViewStep.baseStep(of: try app.repository.head(base))
                if views.contains(where: { $0.baseStep < step }) { scheduler.schedule(base, outcome: nil) }
            } catch {
                app.logger.warning("cannot read a view's base", metadata: ["base": "\(base)", "error": "\(error)"])
                return
            }
        }
    }
}
