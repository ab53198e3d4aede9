import Foundation
import ListDeltaCore

extension ListWriter {
    /// What became of one send of a write.
    enum Verdict {
        /// Acknowledged at this revision.
        case acknowledged(Int)
        /// Cannot land.
        case refused(ListWriteError)
        /// Send the same request with the same key again, after this delay (`error`: a failure to report).
        case again(Duration?, FollowError?)
        /// A guard failed: the indexes moved. Build the write again from the current document.
        case rebuild
    }

    /// Starts the sending loop unless it runs, the writer is stopped, or nothing is pending.
    func kick() {
        guard sendTask == nil, running, !queue.isEmpty else { return }
        sendTask = Task { await sendAll() }
    }

    /// Sends the queue's writes one at a time, in order, each until it is acknowledged or refused.
    private func sendAll() async {
        while running, !Task.isCancelled, let first = queue.first {
            guard let result = await deliver(first.outcome) else { break }
            settle(first.outcome, result)
        }
        sendTask = nil
        kick()
    }

    /// The queued write whose outcome is `outcome`, by position (it may have been dropped by `stop()`).
    private func position(of outcome: WriteOutcome) -> Int? {
        queue.firstIndex { $0.outcome === outcome }
    }

    /// Sends the write until it is acknowledged (its revision) or refused; `nil` once the writer stops.
    private func deliver(_ outcome: WriteOutcome) async -> Result<Int, ListWriteError>? {
        var fresh = false // the server's document was fetched for this write
        while running, !Task.isCancelled, let index = position(of: outcome) {
            let pending = queue[index].pending
            do throws(FollowError) {
                guard let key = pending.key, let request = pending.request else {
                    let base: ListDocument?
                    if !pending.write.isByID {
                        base = .empty(id: listID) // a put or a patch is sent as it is (a put may create the list)
                    } else if fresh {
                        base = latest ?? confirmed
                    } else {
                        base = try await buildBase()
                    }
                    guard let base else { throw .unreadable("no document to build the write against") }
                    switch WriteRequest.guarded(pending.write, against: base) {
                    case .failure where !fresh:
                        // Gone from what the writer holds: it may be behind. Ask, then decide.
                        latest = try await fetchDocument()
                        fresh = true
                    case .failure(let reason):
                        return .failure(.conflict(WriteConflict(reason: reason, write: pending.write)))
                    case .success(let request):
                        guard let index = position(of: outcome) else { return nil }
                        queue[index].pending.request = request
                        queue[index].pending.key = UUID().uuidString
                        await save() // the key is stored before it is sent
                    }
                    continue
                }
                let verdict = judge(try await send(request, key: key), write: pending.write)
                switch verdict {
                case .acknowledged(let revision):
                    backoff.reset()
                    return .success(revision)
                case .refused(let error):
                    return .failure(error)
                case .again(let asked, let error):
                    // A `Retry-After` is a floor: never sooner than the backoff (a `Retry-After: 0` would spin).
                    let delay = max(asked ?? .zero, backoff.next())
                    if let error { options.onRetry?(error, delay) }
                    try await pause(delay)
                case .rebuild:
                    if let index = position(of: outcome) {
                        queue[index].pending.key = nil
                        queue[index].pending.request = nil
                    }
                    await save()
                    try await pause(backoff.next())
                    latest = try await fetchDocument()
                    fresh = true
                }
            } catch {
                if case .status(404, _) = error {
                    return .failure(.conflict(WriteConflict(reason: .list, write: pending.write)))
                }
                guard running, !Task.isCancelled else { return nil }
                let delay = backoff.next()
                options.onRetry?(error, delay)
                try? await Task.sleep(for: delay)
            }
        }
        return nil
    }

    /// The outcome of the first write: it leaves the queue, the view gets the rollback (or nothing new: an
    /// acknowledged write stays shown on top until the follower brings its revision), and its caller the result.
    private func settle(_ outcome: WriteOutcome, _ result: Result<Int, ListWriteError>) {
        guard let index = position(of: outcome) else { return }
        let entry = queue.remove(at: index)
        if case .success(let revision) = result, revision > confirmed?.revision ?? 0 {
            acknowledged.append(AcknowledgedWrite(write: entry.pending.write, revision: revision))
        }
        render()
        Task { await save() }
        outcome.settle(result)
    }

    /// What an answer to a write means.
    func judge(_ response: TransportResponse, write: ListWrite) -> Verdict {
        let problem = (try? ResponseBody.reader.read(response.body))?.objectValue
        let detail = ResponseBody.detail(of: problem, body: response.body)
        switch response.status {
        case 200..<300:
            guard case .number(let number)? = problem?["revision"], let revision = number.intValue else {
                // A 2xx whose body was lost: the same key gets the kept answer again.
                return .again(nil, .unreadable("a write's answer without its revision"))
            }
            return .acknowledged(revision)
        case 409 where problem?["pointer"] == "/Idempotency-Key":
            // The first request with this key is still in flight on the server.
            return .again(Self.retryAfter(response.headers) ?? .seconds(1), nil)
        case 409 where problem?["operation"] != nil:
            if case .patch = write { return .refused(.conflict(WriteConflict(reason: .patch, write: write))) }
            if case .put = write { return .refused(.refused(status: 409, detail: detail)) }
            return .rebuild
        case 404:
            return .refused(.conflict(WriteConflict(reason: .list, write: write)))
        case 408, 429, 500...:
            return .again(Self.retryAfter(response.headers), .status(response.status, detail: detail))
        default:
            return .refused(.refused(status: response.status, detail: detail))
        }
    }

    /// The newest server document the writer holds that has every acknowledged write in it; fetched when none has.
    private func buildBase() async throws(FollowError) -> ListDocument {
        let needed = acknowledged.map(\.revision).max() ?? 0
        let newest = [confirmed, latest].compactMap { $0 }.max { $0.revision < $1.revision }
        if let newest, newest.revision >= needed { return newest }
        let fetched = try await fetchDocument()
        latest = fetched
        return fetched
    }

    /// The list's current document.
    /// - Throws: `.status(404, …)` when there is no list; other failures as the follower reports them.
    private func fetchDocument() async throws(FollowError) -> ListDocument {
        try await transport.document(at: endpoints.document(query: nil), options: options)
    }

    /// Sends `request` with `key`.
    private func send(_ request: WriteRequest, key: String) async throws(FollowError) -> TransportResponse {
        var headers = options.headers(accept: "application/json")
        headers["Content-Type"] = request.method == "PATCH" ? "application/json-patch+json" : "application/json"
        headers["Idempotency-Key"] = key
        do {
            return try await transport.send(TransportRequest(
                method: request.method, url: endpoints.list, headers: headers, body: JSONWriter.bytes(of: request.body),
                idleTimeout: 20))
        } catch {
            throw .transport(error)
        }
    }

    /// Sleeps `delay`; throws when the task is cancelled (the writer stopped).
    private func pause(_ delay: Duration) async throws(FollowError) {
        do { try await Task.sleep(for: delay) } catch { throw .transport(TransportError("cancelled")) }
    }

    /// The delay a `Retry-After` field of seconds asks for, at most a minute.
    static func retryAfter(_ headers: [String: String]) -> Duration? {
        guard let field = headers["retry-after"], let seconds = Int(field.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(min(seconds, 60))
    }
}
