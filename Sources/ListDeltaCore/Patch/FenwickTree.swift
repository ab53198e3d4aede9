/// A binary indexed tree of 0/1 marks: prefix counts and updates in O(log *n*).
struct FenwickTree {
    private var tree: [Int32]

    /// `count` unmarked slots.
    init(count: Int) {
        tree = [Int32](repeating: 0, count: count + 1)
    }

    /// Adds `delta` at `slot`.
    mutating func add(_ delta: Int32, at slot: Int) {
        var index = slot + 1
        while index < tree.count {
            tree[index] += delta
            index += index & -index
        }
    }

    /// The sum of the slots before `slot`.
    func prefix(before slot: Int) -> Int {
        var index = slot
        var sum: Int32 = 0
        while index > 0 {
            sum += tree[index]
            index -= index & -index
        }
        return Int(sum)
    }
}
