import ListDeltaEngine
import ListDeltaStorage
import Logging
import Metrics

extension Application {
    /// Takes in what a shared store announces about the other instances' writes: the repository's cached head is
    /// corrected first, then the list's watchers are told, so a watcher that registers meanwhile either is told or
    /// reads the corrected head (see ``HeadCache``).
    ///
    /// Called on the store's listening task, one announcement at a time, in commit order; it never blocks: what
    /// needs the store is handed to the read pool.
    func receive(_ announcement: StoreAnnouncement) {
        let kind = switch announcement {
        case .committed: "committed"
        case .deleted: "deleted"
        case .sourceChanged: "source"
        case .interrupted: "interrupted"
        case .resumed: "resumed"
        }
        Counter(label: "listdelta_store_announcements_total", dimensions: [("kind", kind)]).increment()
        switch announcement {
        case .committed(let list, let revision, let trace):
            repository.announce(list, revision: revision, deleted: false)
            queries.baseChanged(list, outcome: nil)
            // Nobody watching: a watcher that registers from now on reads the corrected head itself.
            guard hub.isWatched(list) else { return }
            continueWork { self.publishElsewhere(list, revision: revision, trace: trace) }
        case .deleted(let list, let revision):
            repository.announce(list, revision: revision, deleted: true)
            hub.publish(list: list, .deleted)
            queries.baseDeleted(list)
        case .sourceChanged(let list):
            directlyWritten.remove(list)
            viewRegistry.changedElsewhere(list)
        case .interrupted:
            logger.warning("announcements from other instances interrupted: reading every head from the database until they resume")
            repository.suspendHeadCache()
            directlyWritten.suspend()
        case .resumed:
            repository.resumeHeadCache()
            directlyWritten.resume()
            continueWork { self.recheckWatchedLists() }
            queries.everyBaseChanged()
        }
    }

    /// Tells the watchers of `list` about a revision another instance committed: the diff from the revision
    /// before is rendered once, here, and handed to every watcher as a local commit's is (those at another
    /// revision, or when it cannot be rendered, read what they need themselves).
    ///
    /// Runs on the read pool, so two announcements of one list may be published out of order: watchers take a
    /// revision's event only when it follows the revision they hold, and catch up otherwise.
    private func publishElsewhere(_ list: String, revision: Int, trace: CommitTrace?) {
        var outcome: WriteOutcome?
        do {
            outcome = try repository.committedElsewhere(list, revision: revision)
        } catch {
            outcome = nil
        }
        guard var outcome else {
            hub.publish(list: list, .committedElsewhere(revision: revision, trace: trace))
            return
        }
        outcome.trace = trace
        Counter(label: "listdelta_remote_revisions_rendered_total").increment()
        hub.publish(list: list, .revision(outcome, batch: bodies.remember(diffOf: outcome)))
    }

    /// After announcements resumed, tells the watchers of every watched list where it stands now: a commit made
    /// while this instance was not listening wakes them as if it had been announced. A parked poll whose list did
    /// not move answers early, with the empty diff a timeout gives.
    private func recheckWatchedLists() {
        let lists = hub.watchedLists
        guard !lists.isEmpty else { return }
        logger.info("announcements resumed: re-checking watched lists", metadata: ["lists": "\(lists.count)"])
        for list in lists {
            do {
                if let head = try repository.head(list), !head.isDeleted {
                    hub.publish(list: list, .committedElsewhere(revision: head.revision))
                } else {
                    hub.publish(list: list, .deleted)
                }
            } catch {
                // The database went away again: the next resumption checks again.
                logger.warning("re-checking a watched list failed", metadata: ["list": "\(list)", "error": "\(error)"])
                return
            }
        }
    }
}
