/// Longest increasing subsequence by patience sorting.
enum LongestIncreasingSubsequence {
    /// Marks the members of one longest strictly increasing subsequence of `values`.
    ///
    /// Of the longest subsequences it picks the one that ends earliest (then, backwards, the one each member's
    /// predecessor was the best at its time), so when an element must move, the later one moves: the choice of
    /// docs/api.md's example (The batch diff, "When two moves would do").
    /// - Returns: for each position of `values`, `true` when the element is in the subsequence.
    /// - Complexity: O(*n* log *n*) time and O(*n*) memory for *n* values; O(*n*) when `values` is already sorted.
    static func members(of values: [Int32]) -> [Bool] {
        members(of: values, within: Int32.min..<Int32.max)
    }

    /// Marks the members of one longest strictly increasing subsequence of the values that lie in `window`; a
    /// value outside it is never a member (the diff passes its matches, and keeps those from other sections out).
    ///
    /// The same choice among longest subsequences as `members(of:)`.
    /// - Complexity: O(*n* log *n*) time and O(*n*) memory for *n* values; O(*n*) when the values in the window
    ///   are already increasing.
    static func members(of values: [Int32], within window: Range<Int32>) -> [Bool] {
        let count = values.count
        var members = [Bool](repeating: false, count: count)
        if markIfIncreasing(values, within: window, into: &members) { return members }
        var tailValues: [Int32] = []
        var tailPositions: [Int32] = []
        var predecessors = [Int32](repeating: -1, count: count)
        var bestLength = 0
        var bestEnd: Int32 = -1
        for position in 0..<count {
            let value = values[position]
            guard window.contains(value) else { continue }
            var low = 0
            var high = tailValues.count
            while low < high {
                let middle = (low + high) >> 1
                if tailValues[middle] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { predecessors[position] = tailPositions[low - 1] }
            if low == tailValues.count {
                tailValues.append(value)
                tailPositions.append(Int32(position))
            } else {
                tailValues[low] = value
                tailPositions[low] = Int32(position)
            }
            if low + 1 > bestLength {
                bestLength = low + 1
                bestEnd = Int32(position)
            }
        }
        var cursor = bestEnd
        while cursor >= 0 {
            members[Int(cursor)] = true
            cursor = predecessors[Int(cursor)]
        }
        return members
    }

    /// Marks every value in the window when those values are strictly increasing, and says whether they were
    /// (marking nothing when they were not).
    private static func markIfIncreasing(_ values: [Int32], within window: Range<Int32>, into members: inout [Bool]) -> Bool {
        var previous = Int64.min
        for value in values where window.contains(value) {
            if Int64(value) <= previous { return false }
            previous = Int64(value)
        }
        for (position, value) in values.enumerated() where window.contains(value) { members[position] = true }
        return true
    }
}
