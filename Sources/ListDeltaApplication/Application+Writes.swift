import Logging
public import ListDeltaCore
public import ListDeltaEngine
public import ListDeltaStorage

extension Application {
    /// Writes the next revision of `id` (see ``ListRepository/write(_:origin:preconditions:mustExist:viewStep:onCommit:build:)``),
    /// then ``afterCommit(_:)``.
    /// - Parameter build: Makes the new document from the current one (nil when absent) and the next revision's
    ///   number, under the list's lock; what it throws comes back as ``WriteFailure/refused(_:)``.
    /// - Parameter answer: For a write sent with an `Idempotency-Key`, the answer to keep with the revision it
    ///   makes (``IdempotencyKeys``).
    public func write<Refusal: Error>(
        _ id: String, origin: RevisionOrigin, preconditions: WritePreconditions, mustExist: Bool = false,
        answer: ((WriteOutcome) -> AnswerToKeep)? = nil, build: (ListDocument?, Int) throws(Refusal) -> ListDocument
    ) throws(WriteFailure<Refusal>) -> WriteOutcome {
        try repository.write(
            id, origin: origin, preconditions: preconditions, mustExist: mustExist, answer: answer, onCommit: afterCommit, build: build)
    }

    /// Deletes `id` under its preconditions, and with it its source and view definition (detached under the list's
    /// lock right after the commit, so that a fetch of this instance waiting for the lock finds its lease gone and
    /// writes nothing: the list cannot come back). A list whose source has yet to create it is deleted by detaching
    /// its source. Its watchers are told, its views emptied and its cached diffs forgotten.
    /// - Throws: ``ApplicationError/engine(_:)`` with ``EngineError/notFound(_:)`` when there is nothing to delete,
    ///   or the engine's other errors.
    public func delete(_ id: String, preconditions: WritePreconditions) throws(ApplicationError) {
        let detach = { () -> Bool in
            do {
                let detachedSource = try self.sourceStore.detachSource(id)
                let detachedView = try self.viewStore.detachView(id)
                if detachedView { self.viewRegistry.remove(id) }
                return detachedSource || detachedView
            } catch {
                self.logger.warning("the deleted list's source or view could not be detached", metadata: ["list": "\(id)", "error": "\(error)"])
                return false
            }
        }
        do throws(EngineError) {
            _ = try repository.delete(id, preconditions: preconditions) {
                _ = detach()
                hub.publish(list: id, .deleted)
                viewRegistry.baseChanged(id, outcome: nil)
                queries.baseDeleted(id)
            }
        } catch .notFound(let detail) {
            guard preconditions.ifMatch == nil, detach() else { throw .engine(.notFound(detail)) }
        } catch {
            throw .engine(error)
        }
        bodies.forgetDiffs(of: id)
    }
}
