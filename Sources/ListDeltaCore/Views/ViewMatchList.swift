/// An item that passes a view's filter, with its base section's id and its sort values.
struct ViewMatch: Sendable {
    var item: ListItem
    var section: String
    var keys: [ViewSortValue]
    /// The item's `by` text, for a view grouped `by` a pointer; else `nil`.
    var group: String?
}

/// A view's matching items in view order, kept in chunks of a few hundred so that inserting or removing one
/// costs O(log *m* + *c*) (a binary search, then moving at most one chunk of *c* entries) rather than moving all
/// *m* entries of one array.
struct ViewMatchList: Sendable {
    private(set) var chunks: [[ViewMatch]] = []
    /// The number of matches.
    private(set) var count = 0

    /// A chunk is split in two when it grows past this size.
    let maximumChunk: Int

    /// The default ``maximumChunk``.
    static let defaultMaximumChunk = 512

    /// A list holding `sorted`, already in view order. O(*m*).
    init(sorted: [ViewMatch], maximumChunk: Int = defaultMaximumChunk) {
        self.maximumChunk = max(2, maximumChunk)
        count = sorted.count
        var start = 0
        while start < sorted.count {
            let end = min(start + self.maximumChunk / 2, sorted.count)
            chunks.append(Array(sorted[start..<end]))
            start = end
        }
    }

    /// Where a match goes: its chunk, offset in the chunk, and rank among all matches.
    struct Place {
        var chunk: Int
        var offset: Int
        var rank: Int
    }

    /// The first place whose match is not before the target (`isBefore(match)`: the match sorts before it).
    /// - Complexity: O(log *m*) calls of `isBefore`, plus O(*m* / *c*) to count the rank.
    func place(where isBefore: (ViewMatch) -> Bool) -> Place {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(chunks[middle][chunks[middle].count - 1]) { low = middle + 1 } else { high = middle }
        }
        let rankBefore = chunks[..<low].reduce(0) { $0 + $1.count }
        guard low < chunks.count else { return Place(chunk: low, offset: 0, rank: rankBefore) }
        let chunk = chunks[low]
        var first = 0, last = chunk.count
        while first < last {
            let middle = (first + last) / 2
            if isBefore(chunk[middle]) { first = middle + 1 } else { last = middle }
        }
        return Place(chunk: low, offset: first, rank: rankBefore + first)
    }

    /// The match at `place`, or `nil` at the end.
    func match(at place: Place) -> ViewMatch? {
        place.chunk < chunks.count && place.offset < chunks[place.chunk].count ? chunks[place.chunk][place.offset] : nil
    }

    /// Inserts `match` at `place` (from ``place(where:)``). O(*c*), or O(*m* / *c*) when a chunk splits.
    mutating func insert(_ match: ViewMatch, at place: Place) {
        count += 1
        if place.chunk == chunks.count {
            if chunks.isEmpty || chunks[chunks.count - 1].count >= maximumChunk {
                chunks.append([match])
            } else {
                chunks[chunks.count - 1].append(match)
            }
            return
        }
        chunks[place.chunk].insert(match, at: place.offset)
        if chunks[place.chunk].count > maximumChunk {
            let half = chunks[place.chunk].count / 2
            let tail = Array(chunks[place.chunk][half...])
            chunks[place.chunk].removeSubrange(half...)
            chunks.insert(tail, at: place.chunk + 1)
        }
    }

    /// Removes the match at `place`. O(*c*), or O(*m* / *c*) when its chunk empties.
    mutating func remove(at place: Place) {
        count -= 1
        chunks[place.chunk].remove(at: place.offset)
        if chunks[place.chunk].isEmpty { chunks.remove(at: place.chunk) }
    }

    /// The matches of ranks `window` as the items a view shows. O(*m* / *c* + *w*) for *w* items in the window:
    /// whole chunks before it are skipped by their counts.
    func shown(_ window: Range<Int>) -> [ViewShownItem] {
        var result: [ViewShownItem] = []
        guard window.lowerBound < count, !window.isEmpty else { return result }
        result.reserveCapacity(min(window.count, count - window.lowerBound))
        var rank = 0
        for chunk in chunks {
            if rank + chunk.count <= window.lowerBound {
                rank += chunk.count
                continue
            }
            for match in chunk[max(0, window.lowerBound - rank)...] {
                if result.count >= window.count { return result }
                result.append(ViewShownItem(item: match.item, section: match.section, group: match.group))
            }
            rank += chunk.count
        }
        return result
    }

    /// Whether one of the first `n` matches satisfies `predicate`. O(*n*) at most, without copying.
    func prefix(_ n: Int, contains predicate: (ViewMatch) -> Bool) -> Bool {
        var seen = 0
        for chunk in chunks {
            for match in chunk {
                if seen >= n { return false }
                if predicate(match) { return true }
                seen += 1
            }
        }
        return false
    }
}
