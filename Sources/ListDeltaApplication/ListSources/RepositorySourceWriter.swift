import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage

/// Writes what a source fetched into the repository, as revisions by `{"op":"source"}`, telling the list's
/// watchers like any write.
struct RepositorySourceWriter: SourceListWriting {
    /// Where it writes (weakly: the application owns the source keeper that owns this).
    weak let app: Application?

    func listExists(_ id: String) -> Bool {
        guard let head = try? app?.repository.head(id) else { return false }
        return !head.isDeleted
    }

    func write(_ id: String, document json: JSONValue, isCurrent: () -> Bool) throws(ApplicationError) -> (changed: Bool, items: Int) {
        let app = try app.orStopped()
        let repository = app.repository
        // Validated before taking the list's lock, as a PUT is.
        let validated = try ApplicationError.mapping { () throws(EngineError) in try repository.makeDocument(from: json, listID: id, revision: 0) }
        let outcome: WriteOutcome
        do throws(WriteFailure<ApplicationError>) {
            outcome = try app.write(id, origin: .source, preconditions: WritePreconditions()) { _, revision throws(ApplicationError) in
                // Under the list's lock: a direct write refused for this source and this fetch's write exclude each
                // other on this instance, and a fetch whose source changed or went writes nothing.
                guard isCurrent() else { throw .superseded("the source changed during the fetch") }
                var document = validated
                document.revision = revision
                return document
            }
        } catch {
            switch error {
            case .refused(let refusal): throw refusal
            case .engine(let failure): throw .engine(failure)
            }
        }
        return (outcome.changed, outcome.document.sections.reduce(0) { $0 + $1.items.count })
    }
}
