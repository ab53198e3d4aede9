import Foundation

/// The character encodings a feed may come in, and conversion to UTF-8.
enum TextEncodings {
    /// How text in a named encoding is read.
    enum Choice {
        /// UTF-8 or US-ASCII: read as is.
        case utf8
        /// Converted to UTF-8 before parsing (ISO-8859-1 and windows-1252 by table here, the rest by Foundation).
        ///
        /// libxml2 reads ISO-8859-1 and windows-1252 itself, but converting first means the bytes libxml2 sees are
        /// checked UTF-8 (the names and texts built from its callbacks are read as UTF-8 without another check).
        case transcode(String.Encoding)
        /// Not an encoding this module reads.
        case unknown

        /// The choice for an IANA charset name (case and `_`/`-` insensitive).
        init(name: String) {
            let key = String(name.trimmingCharacters(in: .whitespaces).lowercased().map { $0 == "_" ? "-" : $0 })
            switch key {
            case "utf-8", "utf8", "us-ascii", "ascii", "ansi-x3.4-1968": self = .utf8
            case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso-latin-1": self = .transcode(.isoLatin1)
            case "windows-1252", "cp1252", "x-cp1252": self = .transcode(.windowsCP1252)
            case "iso-8859-2", "latin2": self = .transcode(.isoLatin2)
            case "windows-1250", "cp1250": self = .transcode(.windowsCP1250)
            case "windows-1251", "cp1251": self = .transcode(.windowsCP1251)
            case "windows-1253", "cp1253": self = .transcode(.windowsCP1253)
            case "windows-1254", "cp1254": self = .transcode(.windowsCP1254)
            case "utf-16", "utf16": self = .transcode(.utf16)
            case "utf-16le": self = .transcode(.utf16LittleEndian)
            case "utf-16be": self = .transcode(.utf16BigEndian)
            case "shift-jis", "shift_jis", "sjis", "x-sjis": self = .transcode(.shiftJIS)
            case "euc-jp": self = .transcode(.japaneseEUC)
            case "macintosh", "x-mac-roman": self = .transcode(.macOSRoman)
            default: self = .unknown
            }
        }
    }

    /// The offset of the first byte that does not belong to valid UTF-8 (RFC 3629: no overlong forms, no
    /// surrogates, nothing above U+10FFFF), or `nil` when all of `bytes` is valid.
    /// - Complexity: O(*n*).
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index = endOfASCII(bytes, from: index + 1)
                continue
            }
            let length: Int
            var lowest: UInt8 = 0x80
            var highest: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, lowest) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, highest) = (3, 0x9F)
            case 0xF0: (length, lowest) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, highest) = (4, 0x8F)
            default: return index
            }
            guard index + length <= count, bytes[index + 1] >= lowest, bytes[index + 1] <= highest else { return index }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return index }
            index += length
        }
        return nil
    }

    /// The index of the first byte at or after `start` that is not ASCII (or the count): eight bytes at a time.
    @inline(__always)
    private static func endOfASCII(_ bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBytes { raw in
            var index = start
            while index + 8 <= raw.count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            while index < raw.count, raw[index] < 0x80 { index += 1 }
            return index
        }
    }

    /// The UTF-16 byte order of `bytes` when they are UTF-16 XML (a byte order mark, or `<` / `<?` with zero
    /// bytes between), else `nil`.
    static func utf16Variant(of bytes: [UInt8]) -> String.Encoding? {
        guard bytes.count >= 2 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0xFE, 0xFF): return .utf16BigEndian
        case (0xFF, 0xFE): return .utf16LittleEndian
        case (0x00, 0x3C): return .utf16BigEndian
        case (0x3C, 0x00): return .utf16LittleEndian
        default: return nil
        }
    }

    /// `bytes` in `encoding` as UTF-8 (a UTF-16 byte order mark dropped).
    /// - Throws: `.unsupportedEncoding` when the bytes are not valid in that encoding.
    /// - Complexity: O(*n*).
    static func transcode(_ bytes: [UInt8], from encoding: String.Encoding, name: String) throws(FeedParseError) -> [UInt8] {
        var source = bytes[...]
        if encoding == .utf16BigEndian || encoding == .utf16LittleEndian || encoding == .utf16,
            source.starts(with: [0xFE, 0xFF]) || source.starts(with: [0xFF, 0xFE])
        {
            if encoding != .utf16 { source = source.dropFirst(2) }
        }
        switch encoding {
        case .isoLatin1: return latin1ToUTF8(source)
        case .windowsCP1252: return cp1252ToUTF8(source)
        default:
            guard let text = String(data: Data(source), encoding: encoding) else {
                throw FeedParseError(.unsupportedEncoding, "The feed is not valid \(name.prefix(40)) text.")
            }
            var utf8 = Array(text.utf8)
            if utf8.starts(with: [0xEF, 0xBB, 0xBF]) { utf8.removeFirst(3) }
            return utf8
        }
    }

    /// ISO-8859-1 to UTF-8: every byte is the code point of the same value.
    private static func latin1ToUTF8(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes { appendUTF8(UInt32(byte), to: &out) }
        return out
    }

    /// windows-1252 to UTF-8: ISO-8859-1 except 0x80–0x9F (undefined positions become U+FFFD).
    private static func cp1252ToUTF8(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte >= 0x80 && byte <= 0x9F {
                appendUTF8(UInt32(cp1252High[Int(byte - 0x80)]), to: &out)
            } else {
                appendUTF8(UInt32(byte), to: &out)
            }
        }
        return out
    }

    /// The code points of windows-1252's bytes 0x80–0x9F.
    private static let cp1252High: [UInt16] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD,
        0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0xFFFD, 0x017E, 0x0178,
    ]

    /// Appends the UTF-8 form of a BMP code point.
    @inline(__always)
    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        if scalar < 0x80 {
            out.append(UInt8(scalar))
        } else if scalar < 0x800 {
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        } else {
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
