/// A stable 128-bit hash written as `h-` and 32 hex digits: two independent 64-bit FNV-1a hashes (different
/// offset bases) of the same bytes. The same on every run and machine, unlike `Hasher`; not cryptographic.
enum StableHash {
    private static let prime: UInt64 = 0x0000_0100_0000_01B3
    private static let firstBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    private static let secondBasis: UInt64 = 0x6C62_272E_07BB_0142

    /// `h-` and 32 lowercase hex digits.
    /// - Complexity: O(*n*) in the bytes.
    static func identifier<Bytes: Sequence<UInt8>>(of bytes: Bytes) -> String {
        var first = firstBasis
        var second = secondBasis
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* prime
            second = (second ^ UInt64(byte ^ 0x5A)) &* prime
        }
        return "h-" + hex(first) + hex(second)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
