import Foundation
import Synchronization

/// One lock per key, made when first needed and dropped when no thread holds or waits for it: writes to one
/// list are serialised while writes to other lists never wait for them (or for their commits).
///
/// Memory is bounded by the threads that use it: an entry lives only while a thread holds or waits for it.
final class KeyedLocks<Key: Hashable & Sendable>: Sendable {
    private final class Entry: @unchecked Sendable {
        // NSLock is itself thread-safe; `users` is only touched under `KeyedLocks.entries`' lock.
        let lock = NSLock()
        var users = 0
    }

    private let entries = Mutex([Key: Entry]())

    /// Runs `body` while holding `key`'s lock.
    /// - Complexity: O(1) besides waiting for the key's other holders.
    func withLock<Result, Failure: Error>(_ key: Key, _ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let entry = entries.withLock { entries in
            let entry = entries[key] ?? Entry()
            entry.users += 1
            entries[key] = entry
            return entry
        }
        entry.lock.lock()
        defer {
            entry.lock.unlock()
            entries.withLock { entries in
                entry.users -= 1
                if entry.users == 0 { entries[key] = nil }
            }
        }
        return try body()
    }

    /// The keys with a holder or a waiter (for tests and metrics).
    var activeCount: Int { entries.withLock { $0.count } }
}
