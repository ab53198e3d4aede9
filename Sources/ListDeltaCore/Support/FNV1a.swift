/// 64-bit FNV-1a: a hash that is the same on every run and machine, unlike `Hasher`, for entity tags and stable
/// identifiers. Not cryptographic.
public struct FNV1a: Sendable {
    /// The standard offset basis.
    public static let offsetBasis: UInt64 = 0xCBF2_9CE4_8422_2325
    @usableFromInline static let prime: UInt64 = 0x0000_0100_0000_01B3

    @usableFromInline var state: UInt64

    /// The hash of the bytes combined so far.
    public var value: UInt64 { state }

    /// A hash of no bytes yet, from `basis` (another basis gives an independent hash of the same bytes).
    public init(basis: UInt64 = offsetBasis) { state = basis }

    /// Adds one byte. O(1).
    @inlinable
    public mutating func combine(_ byte: UInt8) { state = (state ^ UInt64(byte)) &* Self.prime }

    /// The hash of `bytes` from the standard basis.
    /// - Complexity: O(*n*) in the bytes.
    @inlinable
    public static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash = FNV1a()
        for byte in bytes { hash.combine(byte) }
        return hash.value
    }

    /// `value` as 16 lowercase hex digits.
    public static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
