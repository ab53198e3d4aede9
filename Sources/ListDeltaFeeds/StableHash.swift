import ListDeltaCore

/// A stable 128-bit hash written as `h-` and 32 hex digits: two independent 64-bit FNV-1a hashes (different
/// offset bases) of the same bytes. The same on every run and machine, unlike `Hasher`; not cryptographic.
enum StableHash {
    private static let secondBasis: UInt64 = 0x6C62_272E_07BB_0142

    /// `h-` and 32 lowercase hex digits.
    /// - Complexity: O(*n*) in the bytes.
    static func identifier<Bytes: Sequence<UInt8>>(of bytes: Bytes) -> String {
        var first = FNV1a()
        var second = FNV1a(basis: secondBasis)
        for byte in bytes {
            first.combine(byte)
            second.combine(byte ^ 0x5A)
        }
        return "h-" + FNV1a.hex(first.value) + FNV1a.hex(second.value)
    }
}
