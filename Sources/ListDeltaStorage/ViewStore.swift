/// A view as stored: the list it is, its base, its definition (JSON text the service writes and reads; the store
/// keeps it opaque) and how far along its base it is.
public struct StoredView: Sendable, Equatable {
    /// The view's own list id.
    public var list: String
    /// The id of the list the view queries (its base).
    public var base: String
    /// The definition, as JSON text.
    public var definition: String
    /// Raised by every attach or change: an update computed for an older generation records nothing.
    public var generation: Int
    /// How far along its base the view's content is (``ViewStep/baseStep``); -1 until the first update.
    public var baseStep: Int

    public init(list: String, base: String, definition: String, generation: Int, baseStep: Int) {
        self.list = list
        self.base = base
        self.definition = definition
        self.generation = generation
        self.baseStep = baseStep
    }
}

/// A point in a base list's life that a view's content was computed from, and the generation of the view's
/// definition it was computed with.
///
/// Steps only grow along a base's life, even across its deletion and re-creation (a re-created list continues
/// after its tombstone's revision): ``baseStep`` is `2 × R` for the live base at revision `R` (0 when the base never
/// existed), and `2 × R + 1` once the base was deleted at revision `R`.
public struct ViewStep: Sendable, Equatable, Comparable {
    public var generation: Int
    public var baseStep: Int

    public init(generation: Int, baseStep: Int) {
        self.generation = generation
        self.baseStep = baseStep
    }

    /// The step of a base whose head is `head` (`nil`: never existed).
    public static func baseStep(of head: ListHead?) -> Int {
        guard let head else { return 0 }
        return 2 * head.revision + (head.isDeleted ? 1 : 0)
    }

    /// The base revision a step's content was computed from, as served in `basedOn`: 0 while the base does not
    /// exist.
    public static func basedOn(_ baseStep: Int) -> Int {
        baseStep > 0 && baseStep % 2 == 0 ? baseStep / 2 : 0
    }

    public static func < (lhs: ViewStep, rhs: ViewStep) -> Bool {
        (lhs.generation, lhs.baseStep) < (rhs.generation, rhs.baseStep)
    }
}

/// Where views are kept. A view's content is written as revisions of its own list (``RevisionStore/append(_:)``
/// with ``RevisionWrite/viewStep``), so that revisions of a view stay in base order however many instances update
/// it: each append, and each ``advanceView(list:step:atRevision:)``, commits only when it moves the view forward.
public protocol ViewStore: Sendable {
    /// The view `list` is, if it is one.
    func view(_ list: String) throws(StoreError) -> StoredView?

    /// The views of `base`, by list id.
    func views(of base: String) throws(StoreError) -> [StoredView]

    /// Every view, by list id (there are at most `maxViews`).
    func allViews() throws(StoreError) -> [StoredView]

    /// Makes `list` a view of `base` with `definition`, or changes it: a new generation, ``StoredView/baseStep``
    /// -1.
    /// - Returns: `true` when it became a view (it was not one before), and the view as stored.
    /// - Throws: ``StoreError/limitReached(_:)`` when attaching would exceed `maximumViews`.
    func attachView(list: String, base: String, definition: String, maximumViews: Int) throws(StoreError) -> (created: Bool, view: StoredView)

    /// Detaches the view `list` (the list stays as it is). `false` when it was not a view.
    func detachView(_ list: String) throws(StoreError) -> Bool

    /// Records that the view's content is the query at `step` without writing a revision (its content did not
    /// change): only when the view has `step.generation`, a lower base step, and its list is still at `atRevision`
    /// (`nil`: the list is absent or deleted). `false` when it recorded nothing.
    func advanceView(list: String, step: ViewStep, atRevision: Int?) throws(StoreError) -> Bool

    /// ``advanceView(list:step:atRevision:)`` for many views in one transaction (one commit, one round trip): what a
    /// base's write costs its views that it leaves as they were.
    /// - Returns: For each advance, in order, whether it recorded its step.
    func advanceViews(_ advances: [ViewAdvance]) throws(StoreError) -> [Bool]
}

/// One view's step to record without a revision (``ViewStore/advanceViews(_:)``).
public struct ViewAdvance: Sendable, Equatable {
    public var list: String
    public var step: ViewStep
    /// The revision the view's list must still be at (`nil`: absent or deleted).
    public var atRevision: Int?

    public init(list: String, step: ViewStep, atRevision: Int?) {
        self.list = list
        self.step = step
        self.atRevision = atRevision
    }
}
