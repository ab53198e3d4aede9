/// Percent-encoding of URL components.
public enum PercentEncoding {
    /// `text` encoded as JavaScript's `encodeURIComponent` encodes it: ASCII letters, digits and `-_.!~*'()` as they
    /// are, every other character as the `%XX` escapes (upper-case hex) of its UTF-8 bytes.
    /// - Complexity: O(*n*) in the UTF-8 length of `text`.
    public static func uriComponent(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0f)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `encodeURIComponent` leaves the ASCII byte as it is.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-_.!~*'()".utf8.contains(byte)
        }
    }
}
