import ListDeltaCore

extension ListWriter {
    /// Reads what the storage holds, once, at start: its writes go before those made since, and its document is
    /// shown at once with them on top (a `.reset` of reason `.restored`). A storage that cannot be read is never
    /// written over: this writer then stores nothing.
    func restore() async {
        guard let storage else { return }
        var stored: StoredList?
        for attempt in 0... {
            do {
                stored = try await storage.load(listID: listID)
                break
            } catch {
                options.onRetry?(.unreadable("the storage: \(error)"), .zero)
                // What the storage holds is never written over unread: after a few failures this writer stores nothing.
                guard attempt < 2, phase == .restoring else { return }
                try? await Task.sleep(for: .milliseconds(200 << (2 * attempt)))
            }
        }
        storageReadable = true
        if let stored, stored.listID == listID {
            queue = stored.pending.map { QueuedWrite(pending: $0) } + queue
            if let document = stored.document {
                confirmed = document
                acknowledged = stored.acknowledged
                let reset = ListReset(reason: .restored, detail: "stored at revision \(document.revision) with \(queue.count) pending writes", from: document.revision)
                render(server: ListUpdate(document: document, change: .reset(reset)))
            }
        }
        await save() // the writes made before the storage was read
    }

    /// What is stored: the server's document (the restored one until the follower brings one), the pending writes with
    /// their keys and requests, the acknowledged writes not yet in the document.
    var snapshot: StoredList {
        StoredList(listID: listID, document: confirmed, pending: queue.map(\.pending), acknowledged: acknowledged)
    }

    /// Stores the newest state; returns once it (or a newer one) is stored. One save runs at a time; calls meanwhile
    /// are folded into the next. Nothing is stored before the storage was read, nor once the writer stopped (a newer
    /// writer may own the storage then).
    func save() async {
        guard storage != nil, storageReadable, phase != .stopped else { return }
        saveWanted = true
        if saveTask == nil {
            saveTask = Task { await storeWanted() }
        }
        await saveTask?.value
    }

    private func storeWanted() async {
        while saveWanted, let storage {
            saveWanted = false
            do {
                try await storage.save(snapshot)
            } catch {
                options.onRetry?(.unreadable("the storage: \(error)"), .zero)
            }
        }
        saveTask = nil
    }
}
