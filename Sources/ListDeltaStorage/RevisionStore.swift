/// Where list revisions are kept: the embedded SQLite store (`SQLiteStore`) or a database several instances share
/// (`PostgresStore`). The service reads and writes through this protocol only.
///
/// A store knows nothing about list documents: it keeps opaque blobs that the service encodes. Per list it keeps a
/// head (``ListHead``) and revision rows, each with an optional delta, snapshot (checkpoint), summary and undo diff.
/// Every method is synchronous and may block on I/O: call it from a worker thread, never from an event loop.
///
/// Every store behaves the same: revisions of a list are numbered without gaps from its first (a recreated list
/// continues after its tombstone), an append commits only on top of the revision it expects, retention keeps the
/// last ``retention`` revisions served (and the checkpoint rows rebuilding them needs), a delete leaves a tombstone.
public protocol RevisionStore: Sendable {
    /// How many revisions are served per list.
    var retention: Int { get }

    /// `true` when other processes write to the same store: heads a process cached may be stale, and an id it never
    /// saw may exist.
    var isShared: Bool { get }

    /// The database's name in OpenTelemetry's `db.system.name` (`sqlite`, `postgresql`), for the spans of its calls.
    var databaseSystem: String { get }

    /// The head of a list, its tombstone included, or `nil` if the id was never used.
    /// - Complexity: O(log *n*) for *n* lists.
    func head(_ id: String) throws(StoreError) -> ListHead?

    /// The rows that rebuild `revision`, from one consistent snapshot: the latest checkpoint at or below it, then
    /// the deltas after it up to and including it; `nil` when the revision is not served.
    /// - Complexity: O(*k* + log *n*) plus the blob sizes, for a chain of *k* rows.
    func chain(_ id: String, upTo revision: Int) throws(StoreError) -> [StoredRevision]?

    /// The undo diffs from `start` back down to `target`, newest first, one per revision in `target + 1 ... start`;
    /// `nil` when either is not a served revision of the live list.
    /// - Complexity: O(*k* + log *n*) plus the blob sizes, for *k* = `start - target`.
    func undoChain(_ id: String, from start: Int, downTo target: Int) throws(StoreError) -> [StoredUndo]?

    /// What rebuilding `revision` reads each way, from one consistent snapshot and without reading a blob: forwards
    /// from its checkpoint, or back from the newer served revision `newer` through undo diffs. `nil` when either is
    /// not a served revision of the live list, or `newer` is below `revision`.
    /// - Complexity: O(*k* + log *n*) for the *k* rows between, of which only the lengths are read.
    func rebuildCosts(_ id: String, revision: Int, from newer: Int) throws(StoreError) -> RebuildCosts?

    /// A page of the served revisions' summaries of a live list, newest first, below `before` (all when `nil`);
    /// `nil` when the list is deleted or absent.
    /// - Complexity: O(*limit* + log *n*).
    func history(_ id: String, before: Int?, limit: Int) throws(StoreError) -> HistoryPage?

    /// Live lists in byte order of their ids, strictly after `after`, at most `limit`.
    /// - Complexity: O(*limit* + log *n*).
    func lists(after: String?, limit: Int) throws(StoreError) -> [ListHead]

    /// Appends the next revision in one transaction, prunes what retention no longer needs, and returns the new
    /// head once committed (durably).
    /// - Throws: ``StoreError/conflict(current:)`` when `expectedRevision` is not the list's current revision (or a
    ///   create finds a live list), ``StoreError/invalidWrite(_:)``, ``StoreError/database(_:)``,
    ///   ``StoreError/unavailable(_:)``.
    func append(_ write: RevisionWrite) throws(StoreError) -> ListHead

    /// Deletes a live list (its head becomes a tombstone, its rows and kept answers go) in one transaction; returns
    /// its head as it was, or `nil` when there was no live list.
    /// - Throws: ``StoreError/conflict(current:)`` when `expectedRevision` is given and is not the current one.
    func delete(_ id: String, expectedRevision: Int?) throws(StoreError) -> ListHead?

    /// The answer kept for `key` on `listID` (see ``RevisionWrite/answer``), expired or not, or `nil`.
    /// - Complexity: O(log *n*) plus the body size, for *n* kept answers.
    func idempotentAnswer(_ listID: String, key: String) throws(StoreError) -> IdempotentAnswer?

    /// Keeps the answer of a write that made no revision (a refusal, or a write that changed nothing) in a
    /// transaction of its own, unless the list has an answer for its key already; forgets the list's expired ones.
    /// Kept whether or not the list exists; a delete of the list forgets them all.
    /// - Complexity: O(log *n*) plus the body size and the expired answers forgotten.
    func keep(_ answer: AnswerToKeep, for listID: String) throws(StoreError)

    /// Forgets at most `limit` answers, of any list, kept before `milliseconds` (since 1970), in a transaction of
    /// their own; returns how many. The sweep of lists that are never written again (their next keyed write would
    /// forget them too).
    /// - Complexity: O(*k* log *n*) for *k* answers forgotten of *n* kept.
    func forgetAnswers(keptBefore milliseconds: Int64, limit: Int) throws(StoreError) -> Int

    /// Takes a ``WriteTurn`` on `id`, waiting for the one another instance holds; `nil` for a store no other
    /// process writes to (the default). Until the turn ends, the next ``append(_:)`` of `id` commits
    /// inside it, and no other instance's append or delete of `id` commits.
    /// - Throws: ``StoreError/busy(_:)`` when another instance holds the list past the store's deadline,
    ///   ``StoreError/unavailable(_:)`` when the database does not answer in time.
    func takeWriteTurn(_ id: String) throws(StoreError) -> (any WriteTurn)?
}
