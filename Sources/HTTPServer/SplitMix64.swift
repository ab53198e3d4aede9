/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast generator of 64-bit values, for draws that need to be
/// spread, not secret (which requests start a trace). One per thread: it is a value with no lock.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// The next value.
    /// - Complexity: O(1): three multiplications and shifts.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in 0..<1, uniform to 53 bits.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
