import Synchronization

/// Verified tokens and their grants, so that a token is verified once and then only looked up.
///
/// Bounded: at most `limit` entries. When full, expired entries are dropped first, then a quarter of the others,
/// arbitrary ones (a dropped token is verified again on its next use, which costs time, never correctness). Shared
/// by every event loop.
final class GrantCache: Sendable {
    private let entries = Mutex<[String: Grant]>([:])
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The grant of a token verified before, if still held.
    /// - Complexity: O(*n*) in the token's length (its hash), under a lock.
    func grant(for token: String) -> Grant? {
        entries.withLock { $0[token] }
    }

    /// Remembers a verified token, making room when full.
    func insert(_ grant: Grant, for token: String, now: Double) {
        entries.withLock { entries in
            if entries.count >= limit {
                // Expired entries first; then a quarter at once, so that a cache full of live tokens is rebuilt
                // once per limit/4 insertions, not on every one.
                entries = entries.filter { ($0.value.expiresAt ?? .infinity) > now }
                if entries.count >= limit {
                    for _ in 0..<max(1, limit / 4) { entries.remove(at: entries.startIndex) }
                }
            }
            entries[token] = grant
        }
    }

    /// Forgets a token (expired).
    func remove(_ token: String) {
        _ = entries.withLock { $0.removeValue(forKey: token) }
    }

    /// The number of tokens held.
    var count: Int { entries.withLock { $0.count } }
}
