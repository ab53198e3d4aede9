/// The one JSON string escaper of the package: the core's document writer and the HTTP layer's problem bodies
/// both write strings through it, so the two can never escape differently.
public enum JSONString {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `value` to `bytes` as a quoted JSON string literal (RFC 8259): `"` and `\` are escaped, newline,
    /// carriage return and tab get their short escapes, other control characters `\u00XX`; everything else,
    /// non-ASCII UTF-8 included, is copied as is.
    /// - Complexity: O(*n*) in the UTF-8 length of `value`.
    public static func append(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if runStart < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                appendEscape(of: byte, to: &bytes)
            }
            if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(of byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(0x5C)
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]])
        }
    }
}
