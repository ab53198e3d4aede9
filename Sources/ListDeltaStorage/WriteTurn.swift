/// A hold on one list of a shared store: while it lasts, no other instance commits a revision of the list or
/// deletes it, and the next append of the list through the store that gave it commits inside it and ends it.
///
/// The way out of a race an unconditional writer keeps losing: an instance that can commit in one round trip (it
/// knows the head and has the document) wins every race against one that must read them first, for as long as
/// its clients keep writing. Taken after a few lost races, a turn lets the loser read, build and commit without
/// anyone committing in between; the others' writes of the list wait for it, a few round trips.
public protocol WriteTurn: AnyObject, Sendable {
    /// Ends the turn without a write (nothing is committed). A turn whose append was made has ended already.
    /// Idempotent.
    func end()
}

extension RevisionStore {
    /// No turn: a store that no other process writes to has no race to lose.
    public func takeWriteTurn(_ id: String) throws(StoreError) -> (any WriteTurn)? { nil }
}
