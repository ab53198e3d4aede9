/// An error thrown by ``ListStore``.
///
/// Descriptions never contain stored blob bytes nor SQL arguments.
public enum StoreError: Error, Equatable {
    /// The write was based on a stale view of the list.
    ///
    /// Thrown when `expectedRevision` does not equal the current revision of a live list, or when a create
    /// (`expectedRevision == nil`) targets a list that exists. `current` is the current revision of the live list,
    /// or `nil` when there is no live list.
    case conflict(current: Int?)

    /// The write or the configuration breaks an invariant of the store (the message says which).
    case invalidWrite(String)

    /// SQLite or the file system failed. The message carries the result code and SQLite's message only.
    case database(String)
}
