/// Tracks the live positions of one array while a JSON Patch rearranges it with `remove`, `add` and `move`.
///
/// The old elements that remain (stayers, in order, and elements about to leave) and the new elements that
/// arrive (inserted or moved in) all get a spot in one total order that every intermediate state of the array
/// respects, provided arrivals are placed in ascending target order: each arrival lands directly after its
/// predecessor in the final array. A position is then a prefix count. (The spot order: arrivals before the
/// first stayer, then each old element followed, if it is a stayer, by the arrivals that follow it.)
struct ArrayReorderPlan {
    private var marks: FenwickTree
    /// Spot of each old element (index into the old array after deletions were removed), or -1 when deleted.
    private var oldSpots: [Int32]
    /// Spot of each final position; only arrivals' spots are used.
    private var newSpots: [Int32]

    /// - Parameters:
    ///   - oldLeaving: for each old element (deleted ones excluded), whether it leaves (moves away).
    ///   - newArriving: for each final position, whether an element arrives there (inserted or moved in).
    init(oldLeaving: [Bool], newArriving: [Bool]) {
        let spotCount = oldLeaving.count + newArriving.count
        marks = FenwickTree(count: spotCount)
        oldSpots = [Int32](repeating: -1, count: oldLeaving.count)
        newSpots = [Int32](repeating: -1, count: newArriving.count)
        var spot: Int32 = 0
        var finalCursor = 0
        func takeArrivals() {
            while finalCursor < newArriving.count, newArriving[finalCursor] {
                newSpots[finalCursor] = spot
                spot += 1
                finalCursor += 1
            }
        }
        takeArrivals()
        for (index, leaving) in oldLeaving.enumerated() {
            oldSpots[index] = spot
            marks.add(1, at: Int(spot))
            spot += 1
            if !leaving {
                // This stayer holds the next non-arrival final position.
                finalCursor += 1
                takeArrivals()
            }
        }
    }

    /// The current index of old element `index`, and removes it.
    mutating func leave(oldIndex index: Int) -> Int {
        let spot = Int(oldSpots[index])
        let position = marks.prefix(before: spot)
        marks.add(-1, at: spot)
        return position
    }

    /// The index at which final position `index` is inserted now, and marks it present.
    mutating func arrive(newIndex index: Int) -> Int {
        let spot = Int(newSpots[index])
        let position = marks.prefix(before: spot)
        marks.add(1, at: spot)
        return position
    }
}
