import ListDeltaCore
public import ListDeltaEngine

extension Application {
    /// What follows every commit of this instance, whoever wrote (a client, a source's fetch, a view's update):
    /// the list's watchers are told (its parked polls answered, its event streams sent the revision, with the diff
    /// rendered once for all of them), then the views and the live queries whose base it is are scheduled for an
    /// update.
    ///
    /// Called under the list's write lock, right after the store acknowledged the commit, so every watcher sees a
    /// list's revisions in order (the engine's `write` calls it as its `onCommit`). A write that changed nothing
    /// tells no one. Another instance's commits reach the same watchers through ``receive(_:)``.
    /// - Complexity: O(*w*) for *w* watchers of the list, plus one dictionary lookup for its views.
    public func afterCommit(_ outcome: WriteOutcome) {
        guard outcome.changed else { return }
        hub.publish(list: outcome.document.id, .revision(outcome, batch: bodies.remember(diffOf: outcome)))
        viewRegistry.baseChanged(outcome.document.id, outcome: outcome)
        queries.baseChanged(outcome.document.id, outcome: outcome)
    }
}
