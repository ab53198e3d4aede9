import CZlib

/// A gzip member whose compressed data can be reused inside a larger gzip member without compressing it again.
///
/// Its deflate data ends with a sync flush (byte-aligned, no final block) and the member is closed by an empty
/// final block, so ``bytes`` is an ordinary gzip member that any client inflates. ``spliced(prefix:suffix:)``
/// puts freshly compressed `prefix` and `suffix` around the *same* deflate data and combines the CRC-32s
/// (`crc32_combine`): `{"id":…,"diff":` + *a diff compressed once* + `}` costs the compression of the few bytes
/// around it. (Each piece is an independent deflate stream: a later piece never refers back to an earlier one,
/// which is what makes the concatenation valid deflate.)
public struct SpliceableGzip: Sendable {
    /// The complete gzip member.
    public let bytes: [UInt8]
    /// The inflated size.
    public let inflatedCount: Int
    private let crc: UInt32

    private static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
    /// zlib's window bits for a raw deflate stream (no zlib or gzip framing: this type writes its own).
    private static let rawDeflate: Int32 = -15
    /// An empty fixed-Huffman block with the final bit set.
    private static let finalBlock: [UInt8] = [0x03, 0x00]

    /// Compresses `plain`.
    /// - Throws: ``GzipError/initializationFailed(_:)`` when zlib cannot start.
    /// - Complexity: O(*n*) in the input size.
    public init(compressing plain: [UInt8], level: Int32 = 6) throws(GzipError) {
        let deflated = try Deflate.once(plain, level: level, windowBits: Self.rawDeflate, flush: Z_SYNC_FLUSH)
        // Exactly the member's size: a cached body holds what it reserved.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.header.count + deflated.count + Self.finalBlock.count + 8)
        bytes += Self.header
        bytes += deflated
        bytes += Self.finalBlock
        let crc = Self.crc32(plain)
        Self.appendTrailer(crc: crc, count: plain.count, to: &bytes)
        self.bytes = bytes
        self.inflatedCount = plain.count
        self.crc = crc
    }

    /// The deflate data between the header and the final block.
    private var deflateData: ArraySlice<UInt8> {
        bytes[Self.header.count..<(bytes.count - Self.finalBlock.count - 8)]
    }

    /// A gzip member of `prefix` + this member's content + `suffix`, reusing this member's compressed data.
    /// - Throws: ``GzipError/initializationFailed(_:)`` when zlib cannot start.
    /// - Complexity: O(*p* + *s*) to compress the prefix and suffix, plus copying this member's bytes.
    public func spliced(prefix: [UInt8], suffix: [UInt8]) throws(GzipError) -> [UInt8] {
        let deflatedPrefix = try Deflate.once(prefix, level: 6, windowBits: Self.rawDeflate, flush: Z_SYNC_FLUSH)
        let deflatedSuffix = try Deflate.once(suffix, level: 6, windowBits: Self.rawDeflate, flush: Z_FINISH)
        var result: [UInt8] = []
        result.reserveCapacity(Self.header.count + deflatedPrefix.count + deflateData.count + deflatedSuffix.count + 8)
        result += Self.header
        result += deflatedPrefix
        result += deflateData
        result += deflatedSuffix
        var crc = Self.crc32(prefix)
        crc = UInt32(crc32_combine(uLong(crc), uLong(self.crc), off_t(inflatedCount)))
        crc = UInt32(crc32_combine(uLong(crc), uLong(Self.crc32(suffix)), off_t(suffix.count)))
        Self.appendTrailer(crc: crc, count: prefix.count + inflatedCount + suffix.count, to: &result)
        return result
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    private static func appendTrailer(crc: UInt32, count: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        let size = UInt32(truncatingIfNeeded: count)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: size >> UInt32(shift))) }
    }
}
