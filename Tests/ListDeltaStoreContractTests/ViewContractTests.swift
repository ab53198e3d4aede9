import ListDeltaStorage
import ListDeltaStoreTestSupport
import Testing

/// Views: attach, change and detach, the bound on them, writes that commit only when they move the view forward
/// along its base (its steps), and advances that record a step without a revision.
@Suite struct ViewContractTests {
    @Test(arguments: StoreKind.available)
    func attachChangeAndDetach(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let prefix = uniqueID("views")
            let (base, first, second) = ("\(prefix)-base", "\(prefix)-b", "\(prefix)-a")
            let attached = try store.attachView(list: first, base: base, definition: "{\"q\":1}", maximumViews: .max)
            #expect(attached.created)
            #expect(attached.view == StoredView(list: first, base: base, definition: "{\"q\":1}", generation: 1, baseStep: -1))
            #expect(try store.view(first) == attached.view)
            #expect(try store.view(base) == nil, "a base is no view")
            #expect(try store.head(first) == nil, "a view's row is no list")
            #expect(try store.advanceView(list: first, step: ViewStep(generation: 1, baseStep: 4), atRevision: nil))
            #expect(try store.view(first)?.baseStep == 4)
            // A change: a new generation, from the start of its base again.
            let changed = try store.attachView(list: first, base: base, definition: "{\"q\":2}", maximumViews: .max)
            #expect(!changed.created)
            #expect(changed.view == StoredView(list: first, base: base, definition: "{\"q\":2}", generation: 2, baseStep: -1))
            #expect(try store.view(first) == changed.view)
            // Another base is a change too, and moves it.
            let moved = try store.attachView(list: first, base: "\(prefix)-other", definition: "{\"q\":2}", maximumViews: .max)
            #expect(moved.view.generation == 3)
            #expect(try store.views(of: base).isEmpty)
            #expect(try store.views(of: "\(prefix)-other").map(\.list) == [first])
            _ = try store.attachView(list: first, base: base, definition: "{\"q\":3}", maximumViews: .max)
            _ = try store.attachView(list: second, base: base, definition: "{}", maximumViews: .max)
            #expect(try store.views(of: base).map(\.generation) == [1, 4])
            #expect(try store.detachView(first))
            #expect(try store.detachView(first) == false)
            #expect(try store.view(first) == nil)
            #expect(try store.views(of: base).map(\.list) == [second])
            // Attached again: a new view, counted from 1 again.
            let again = try store.attachView(list: first, base: base, definition: "{}", maximumViews: .max)
            #expect(again.created)
            #expect(again.view.generation == 1)
            // Rows are independent of heads: no list was created.
            #expect(try store.head(first) == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func viewsOfABaseAndAllViewsAreInByteOrder(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let prefix = uniqueID("order") + "-"
            let (b1, b2) = (prefix + "base1", prefix + "base2")
            for (list, base) in [("é", b1), ("a", b1), ("B", b1), ("c", b2)] {
                _ = try store.attachView(list: prefix + list, base: base, definition: "{}", maximumViews: .max)
            }
            #expect(try store.views(of: b1).map(\.list) == ["B", "a", "é"].map { prefix + $0 })
            #expect(try store.views(of: b2).map(\.list) == [prefix + "c"])
            #expect(try store.views(of: prefix + "none").isEmpty)
            let all = try store.allViews().map(\.list)
            #expect(all.filter { $0.hasPrefix(prefix) } == ["B", "a", "c", "é"].map { prefix + $0 })
            #expect(all == all.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            // A change of base moves it.
            _ = try store.attachView(list: prefix + "a", base: b2, definition: "{}", maximumViews: .max)
            #expect(try store.views(of: b2).map(\.list) == ["a", "c"].map { prefix + $0 })
            #expect(try store.views(of: b1).map(\.list) == ["B", "é"].map { prefix + $0 })
        }
    }

    /// The bound counts every view of the store; robust against other tests attaching and detaching views at the
    /// same time on a shared database.
    @Test(arguments: StoreKind.available)
    func theNumberOfViewsIsBounded(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let first = uniqueID("bound")
            _ = try store.attachView(list: first, base: "b", definition: "{}", maximumViews: .max)
            // At least `first` is attached, so a bound of 1 refuses any new view...
            let refused = uniqueID("bound")
            #expect(throws: StoreError.limitReached("the service holds its maximum of 1 views")) {
                try store.attachView(list: refused, base: "b", definition: "{}", maximumViews: 1)
            }
            #expect(throws: StoreError.limitReached("the service holds its maximum of 0 views")) {
                try store.attachView(list: refused, base: "b", definition: "{}", maximumViews: 0)
            }
            #expect(try store.view(refused) == nil)
            // ...but changing one that is attached is no new view.
            #expect(try store.attachView(list: first, base: "b", definition: "{\"v\":2}", maximumViews: 1).view.generation == 2)
            #expect(try store.detachView(first))
        }
    }

    @Test(arguments: StoreKind.available)
    func aViewsWriteRecordsItsStep(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let v = uniqueID("v")
            _ = try store.attachView(list: v, base: "b", definition: "{}", maximumViews: .max)
            #expect(try store.append(RevisionWrite.create(v).forView(generation: 1, step: 0)).revision == 1)
            #expect(try store.view(v)?.baseStep == 0)
            #expect(try store.append(RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 4)).revision == 2)
            #expect(try store.view(v)?.baseStep == 4)
            #expect(try store.chain(v, upTo: 2)?.last?.delta == blob(2, revision: 2, count: 8))
        }
    }

    @Test(arguments: StoreKind.available)
    func aViewsWriteThatDoesNotMoveItForwardWritesNothing(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let v = try createdView(store, atStep: 4)
            let head = try store.head(v)
            let chain = try store.chain(v, upTo: 1)
            let history = try store.history(v, before: nil, limit: 10)
            func unchanged() throws {
                #expect(try store.head(v) == head)
                #expect(try store.chain(v, upTo: 2) == nil)
                #expect(try store.chain(v, upTo: 1) == chain)
                #expect(try store.history(v, before: nil, limit: 10) == history)
            }
            // The same step, a lower one, another generation (older or newer).
            let refusals = [
                (RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 4), "the view is already at base step 4 (this write is for step 4)"),
                (RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 3), "the view is already at base step 4 (this write is for step 3)"),
                (RevisionWrite.update(v, expected: 1).forView(generation: 2, step: 6), "the view was changed (generation 1, not 2)"),
                (RevisionWrite.update(v, expected: 1).forView(generation: 0, step: 6), "the view was changed (generation 1, not 0)"),
            ]
            for (write, reason) in refusals {
                #expect(storeError { _ = try store.append(write) } == .superseded(reason))
                try unchanged()
                #expect(try store.view(v)?.baseStep == 4)
            }
            // Detached: nothing written.
            _ = try store.detachView(v)
            #expect(storeError { _ = try store.append(RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 6)) } == .superseded("the view was detached"))
            try unchanged()
            // A list that never was a view: not even created.
            let plain = uniqueID("plain")
            #expect(storeError { _ = try store.append(RevisionWrite.create(plain).forView(generation: 1, step: 0)) } == .superseded("the view was detached"))
            #expect(try store.head(plain) == nil)
            #expect(try store.view(plain) == nil)
        }
    }

    @Test(arguments: StoreKind.available)
    func theHeadsCheckComesFirst(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let v = try createdView(store, atStep: 2)
            // An unguarded write is not checked, nor does it move the view.
            #expect(try store.append(.update(v, expected: 1)).revision == 2)
            #expect(try store.view(v)?.baseStep == 2)
            // A stale write is a conflict, with nothing recorded, whether or not it would move the view.
            #expect(storeError { _ = try store.append(RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 4)) } == .conflict(current: 2))
            #expect(storeError { _ = try store.append(RevisionWrite.create(v).forView(generation: 1, step: 4)) } == .conflict(current: 2))
            #expect(storeError { _ = try store.append(RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 2)) } == .conflict(current: 2))
            #expect(storeError { _ = try store.append(RevisionWrite.update(v, expected: 0).forView(generation: 1, step: 4)) } == .conflict(current: 2))
            #expect(try store.view(v)?.baseStep == 2)
            #expect(try store.head(v)?.revision == 2)
        }
    }

    @Test(arguments: StoreKind.available)
    func aChangedViewTakesWritesOfItsNewGenerationFromAnyStep(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let v = try createdView(store, atStep: 6)
            _ = try store.attachView(list: v, base: "b", definition: "{\"v\":2}", maximumViews: .max)
            #expect(storeError { _ = try store.append(RevisionWrite.update(v, expected: 1).forView(generation: 1, step: 8)) } != nil)
            #expect(try store.append(RevisionWrite.update(v, expected: 1).forView(generation: 2, step: 0)).revision == 2)
            #expect(try store.view(v)?.baseStep == 0)
            // Deleted, the view's list is created again at a later step: its numbering goes on.
            _ = try store.delete(v, expectedRevision: nil)
            #expect(try store.view(v)?.baseStep == 0, "a delete leaves the view as it is")
            #expect(try store.append(RevisionWrite.create(v, revision: 3).forView(generation: 2, step: 2)).revision == 3)
            #expect(try store.view(v)?.baseStep == 2)
        }
    }

    @Test(arguments: StoreKind.available)
    func anAdvanceRecordsAStepWithoutARevision(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let v = uniqueID("adv")
            let step = { (generation: Int, baseStep: Int) in ViewStep(generation: generation, baseStep: baseStep) }
            #expect(try store.advanceView(list: v, step: step(1, 0), atRevision: nil) == false, "not a view")
            _ = try store.attachView(list: v, base: "base", definition: "{}", maximumViews: .max)
            #expect(try store.advanceView(list: v, step: step(1, 2), atRevision: 3) == false, "no list at revision 3")
            #expect(try store.advanceView(list: v, step: step(1, 2), atRevision: nil))
            #expect(try store.view(v)?.baseStep == 2)
            #expect(try store.advanceView(list: v, step: step(1, 2), atRevision: nil) == false, "not lower")
            #expect(try store.advanceView(list: v, step: step(1, 1), atRevision: nil) == false, "lower")
            #expect(try store.advanceView(list: v, step: step(2, 4), atRevision: nil) == false, "another generation")
            #expect(try store.view(v)?.baseStep == 2)
            _ = try store.append(RevisionWrite.create(v).forView(generation: 1, step: 4))
            #expect(try store.advanceView(list: v, step: step(1, 6), atRevision: nil) == false, "the list exists")
            #expect(try store.advanceView(list: v, step: step(1, 6), atRevision: 2) == false, "another revision")
            #expect(try store.view(v)?.baseStep == 4)
            #expect(try store.advanceView(list: v, step: step(1, 6), atRevision: 1))
            #expect(try store.view(v)?.baseStep == 6)
            #expect(try store.head(v)?.revision == 1, "no revision written")
            // A deleted list is no live list.
            _ = try store.delete(v, expectedRevision: 1)
            #expect(try store.advanceView(list: v, step: step(1, 8), atRevision: 1) == false)
            #expect(try store.advanceView(list: v, step: step(1, 8), atRevision: nil))
            #expect(try store.view(v)?.baseStep == 8)
            _ = try store.detachView(v)
            #expect(try store.advanceView(list: v, step: step(1, 10), atRevision: nil) == false, "detached")
        }
    }

    @Test(arguments: StoreKind.available)
    func advancesInOneCallAnswerEachInOrder(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let prefix = uniqueID("advs")
            let (v, w, plain) = ("\(prefix)-v", "\(prefix)-w", "\(prefix)-plain")
            _ = try store.attachView(list: v, base: "base", definition: "{}", maximumViews: .max)
            _ = try store.attachView(list: w, base: "base", definition: "{}", maximumViews: .max)
            _ = try store.append(RevisionWrite.create(w).forView(generation: 1, step: 2))
            #expect(try store.advanceViews([]) == [])
            let answers = try store.advanceViews([
                ViewAdvance(list: v, step: ViewStep(generation: 1, baseStep: 4), atRevision: nil),
                ViewAdvance(list: plain, step: ViewStep(generation: 1, baseStep: 4), atRevision: nil),
                ViewAdvance(list: w, step: ViewStep(generation: 1, baseStep: 4), atRevision: 2),
                ViewAdvance(list: w, step: ViewStep(generation: 1, baseStep: 4), atRevision: 1),
                // The one before it already moved `w` to 4.
                ViewAdvance(list: w, step: ViewStep(generation: 1, baseStep: 4), atRevision: 1),
                ViewAdvance(list: v, step: ViewStep(generation: 1, baseStep: 6), atRevision: nil),
            ])
            #expect(answers == [true, false, false, true, false, true])
            #expect(try store.view(v)?.baseStep == 6)
            #expect(try store.view(w)?.baseStep == 4)
            #expect(try store.head(w)?.revision == 1)
        }
    }
}

/// Attaches a view of base `b` and creates its list at `step` (generation 1): the view's id.
func createdView(_ store: any ContractStore, atStep step: Int) throws -> String {
    let view = uniqueID("v")
    _ = try store.attachView(list: view, base: "b", definition: "{}", maximumViews: .max)
    _ = try store.append(RevisionWrite.create(view).forView(generation: 1, step: step))
    return view
}
