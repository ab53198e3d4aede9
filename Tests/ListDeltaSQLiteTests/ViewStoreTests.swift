import Foundation
import ListDeltaStorage
import Synchronization
import Testing
@testable import ListDeltaSQLite

@Suite struct ViewStoreTests {
    private func viewWrite(_ write: RevisionWrite, generation: Int, step: Int) -> RevisionWrite {
        var write = write
        write.viewStep = ViewStep(generation: generation, baseStep: step)
        return write
    }

    /// What `body` throws, `nil` when it throws nothing.
    private func thrown(_ body: () throws -> Void) -> StoreError? {
        do {
            try body()
            return nil
        } catch {
            return error as? StoreError ?? .database("not a StoreError: \(error)")
        }
    }

    @Test func attachChangeAndDetach() throws {
        try withStore { store, _ in
            let attached = try store.attachView(list: "v", base: "b", definition: "{\"q\":1}", maximumViews: 10)
            #expect(attached.created)
            #expect(attached.view == StoredView(list: "v", base: "b", definition: "{\"q\":1}", generation: 1, baseStep: -1))
            #expect(try store.advanceView(list: "v", step: ViewStep(generation: 1, baseStep: 6), atRevision: nil))
            let changed = try store.attachView(list: "v", base: "b", definition: "{\"q\":2}", maximumViews: 10)
            #expect(!changed.created)
            #expect(changed.view == StoredView(list: "v", base: "b", definition: "{\"q\":2}", generation: 2, baseStep: -1))
            #expect(try store.view("v") == changed.view)
            #expect(try store.view("b") == nil)
            #expect(try store.head("v") == nil, "a view's row is no list")
            #expect(try store.detachView("v"))
            #expect(try store.detachView("v") == false)
            #expect(try store.view("v") == nil)
            #expect(try store.attachView(list: "v", base: "b", definition: "{}", maximumViews: 10).view.generation == 1)
        }
    }

    @Test func viewsOfABaseAndAllViewsAreInByteOrder() throws {
        try withStore { store, _ in
            for (list, base) in [("é", "b1"), ("a", "b1"), ("B", "b1"), ("c", "b2")] {
                _ = try store.attachView(list: list, base: base, definition: "{}", maximumViews: 10)
            }
            #expect(try store.views(of: "b1").map(\.list) == ["B", "a", "é"])
            #expect(try store.views(of: "b2").map(\.list) == ["c"])
            #expect(try store.views(of: "none").isEmpty)
            #expect(try store.allViews().map(\.list) == ["B", "a", "c", "é"])
            // A change of base moves it.
            _ = try store.attachView(list: "a", base: "b2", definition: "{}", maximumViews: 10)
            #expect(try store.views(of: "b2").map(\.list) == ["a", "c"])
        }
    }

    @Test func theNumberOfViewsIsBounded() throws {
        try withStore { store, _ in
            _ = try store.attachView(list: "a", base: "b", definition: "{}", maximumViews: 2)
            _ = try store.attachView(list: "c", base: "b", definition: "{}", maximumViews: 2)
            #expect(throws: StoreError.limitReached("the service holds its maximum of 2 views")) {
                try store.attachView(list: "d", base: "b", definition: "{}", maximumViews: 2)
            }
            #expect(try store.view("d") == nil)
            // Changing an attached view is no new view.
            #expect(try store.attachView(list: "a", base: "b", definition: "{\"v\":2}", maximumViews: 2).view.generation == 2)
            _ = try store.detachView("c")
            #expect(try store.attachView(list: "d", base: "b", definition: "{}", maximumViews: 2).created)
        }
    }

    @Test func aViewWriteRecordsItsStep() throws {
        try withStore { store, _ in
            _ = try store.attachView(list: "v", base: "b", definition: "{}", maximumViews: 10)
            #expect(try store.append(viewWrite(.create("v"), generation: 1, step: 0)).revision == 1)
            #expect(try store.view("v")?.baseStep == 0)
            #expect(try store.append(viewWrite(.update("v", expected: 1), generation: 1, step: 4)).revision == 2)
            #expect(try store.view("v")?.baseStep == 4)
            #expect(try store.chain("v", upTo: 2)?.last?.delta == blob(2, revision: 2, count: 8))
        }
    }

    @Test func aViewWriteThatDoesNotMoveTheViewForwardWritesNothing() throws {
        try withStore { store, _ in
            _ = try store.attachView(list: "v", base: "b", definition: "{}", maximumViews: 10)
            _ = try store.append(viewWrite(.create("v"), generation: 1, step: 4))
            let head = try store.head("v")
            let chain = try store.chain("v", upTo: 1)
            let history = try store.history("v", before: nil, limit: 10)
            let refusals = [
                (viewWrite(.update("v", expected: 1), generation: 1, step: 4), "the view is already at base step 4 (this write is for step 4)"),
                (viewWrite(.update("v", expected: 1), generation: 1, step: 3), "the view is already at base step 4 (this write is for step 3)"),
                (viewWrite(.update("v", expected: 1), generation: 2, step: 6), "the view was changed (generation 1, not 2)"),
                (viewWrite(.update("v", expected: 1), generation: 0, step: 6), "the view was changed (generation 1, not 0)"),
            ]
            for (write, reason) in refusals {
                #expect(thrown { _ = try store.append(write) } == .superseded(reason))
                #expect(try store.head("v") == head)
                #expect(try store.chain("v", upTo: 2) == nil)
                #expect(try store.chain("v", upTo: 1) == chain)
                #expect(try store.history("v", before: nil, limit: 10) == history)
                #expect(try store.view("v")?.baseStep == 4)
            }
            _ = try store.detachView("v")
            #expect(thrown { _ = try store.append(viewWrite(.update("v", expected: 1), generation: 1, step: 6)) } == .superseded("the view was detached"))
            #expect(try store.head("v") == head)
            // Never a view: not even created.
            #expect(thrown { _ = try store.append(viewWrite(.create("w"), generation: 1, step: 0)) } == .superseded("the view was detached"))
            #expect(try store.head("w") == nil)
            #expect(try store.lists(after: nil, limit: 10).map(\.id) == ["v"])
        }
    }

    @Test func theHeadsCheckStillApplies() throws {
        try withStore { store, _ in
            _ = try store.attachView(list: "v", base: "b", definition: "{}", maximumViews: 10)
            _ = try store.append(viewWrite(.create("v"), generation: 1, step: 2))
            _ = try store.append(.update("v", expected: 1))
            #expect(thrown { _ = try store.append(viewWrite(.update("v", expected: 1), generation: 1, step: 4)) } == .conflict(current: 2))
            #expect(thrown { _ = try store.append(viewWrite(.create("v"), generation: 1, step: 4)) } == .conflict(current: 2))
            // Stale both ways: the conflict.
            #expect(thrown { _ = try store.append(viewWrite(.update("v", expected: 1), generation: 1, step: 2)) } == .conflict(current: 2))
            #expect(try store.view("v")?.baseStep == 2)
            #expect(try store.head("v")?.revision == 2)
        }
    }

    @Test func advanceView() throws {
        try withStore { store, _ in
            let step = { (generation: Int, baseStep: Int) in ViewStep(generation: generation, baseStep: baseStep) }
            #expect(try store.advanceView(list: "v", step: step(1, 0), atRevision: nil) == false)
            _ = try store.attachView(list: "v", base: "b", definition: "{}", maximumViews: 10)
            #expect(try store.advanceView(list: "v", step: step(1, 1), atRevision: 3) == false)
            #expect(try store.advanceView(list: "v", step: step(1, 1), atRevision: nil))
            #expect(try store.advanceView(list: "v", step: step(1, 1), atRevision: nil) == false)
            #expect(try store.advanceView(list: "v", step: step(2, 3), atRevision: nil) == false)
            _ = try store.append(viewWrite(.create("v"), generation: 1, step: 2))
            #expect(try store.advanceView(list: "v", step: step(1, 4), atRevision: nil) == false)
            #expect(try store.advanceView(list: "v", step: step(1, 4), atRevision: 2) == false)
            #expect(try store.advanceView(list: "v", step: step(1, 4), atRevision: 1))
            #expect(try store.view("v")?.baseStep == 4)
            #expect(try store.head("v")?.revision == 1)
            _ = try store.delete("v", expectedRevision: nil)
            #expect(try store.advanceView(list: "v", step: step(1, 6), atRevision: 1) == false)
            #expect(try store.advanceView(list: "v", step: step(1, 6), atRevision: nil))
            #expect(try store.view("v")?.baseStep == 6)
        }
    }

    /// Writers of one view for steps 1...40 at once, each again after a lost race until it commits or is
    /// superseded: the view ends at step 40 and its revisions are in step order.
    @Test func racingViewWritesKeepBaseOrder() throws {
        try withStore { store, _ in
            _ = try store.attachView(list: "v", base: "b", definition: "{}", maximumViews: 10)
            _ = try store.append(viewWrite(.create("v"), generation: 1, step: 0))
            let committed = Mutex<[(revision: Int, step: Int)]>([(1, 0)])
            let failures = Mutex<[StoreError]>([])
            DispatchQueue.concurrentPerform(iterations: 40) { index in
                let step = index + 1
                for _ in 0..<1_000 {
                    guard let current = try? store.head("v")?.revision else { return }
                    let write = viewWrite(.update("v", expected: current), generation: 1, step: step)
                    switch Result(catching: { () throws(StoreError) in try store.append(write) }) {
                    case .success(let head):
                        committed.withLock { $0.append((head.revision, step)) }
                        return
                    case .failure(.conflict):
                        continue
                    case .failure(.superseded):
                        return
                    case .failure(let error):
                        failures.withLock { $0.append(error) }
                        return
                    }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            let steps = committed.withLock { $0 }.sorted { $0.revision < $1.revision }
            #expect(steps.map(\.revision) == Array(1...steps.count))
            #expect(steps.map(\.step) == steps.map(\.step).sorted())
            #expect(try store.view("v")?.baseStep == 40)
            #expect(try store.head("v")?.revision == steps.count)
        }
    }

    @Test func viewsSurviveReopening() throws {
        try withTemporaryDirectory { path in
            let configuration = SQLiteStoreConfiguration(directory: path + "/data")
            do {
                let store = try SQLiteStore(configuration: configuration)
                _ = try store.attachView(list: "v", base: "b", definition: "{\"q\":1}", maximumViews: 10)
                _ = try store.attachView(list: "v", base: "b", definition: "{\"q\":2}", maximumViews: 10)
                _ = try store.attachView(list: "w", base: "b", definition: "{}", maximumViews: 10)
                _ = try store.append(viewWrite(.create("v"), generation: 2, step: 8))
            }
            let reopened = try SQLiteStore(configuration: configuration)
            #expect(try reopened.allViews() == [
                StoredView(list: "v", base: "b", definition: "{\"q\":2}", generation: 2, baseStep: 8),
                StoredView(list: "w", base: "b", definition: "{}", generation: 1, baseStep: -1),
            ])
            #expect(thrown { _ = try reopened.append(viewWrite(.update("v", expected: 1), generation: 2, step: 8)) } != nil)
            #expect(try reopened.append(viewWrite(.update("v", expected: 1), generation: 2, step: 10)).revision == 2)
        }
    }
}
