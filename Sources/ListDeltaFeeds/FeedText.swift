import Foundation

/// Small text helpers the format parsers share: trimming, cutting to a byte budget, resolving links, escaping.
enum FeedText {
    /// `text` without leading and trailing white space (Unicode), or `nil` when nothing is left.
    /// - Complexity: O(*w*) in the white space removed (plus a copy of what is kept).
    static func trimmed(_ text: String) -> String? {
        // Fast path: printable ASCII at both ends (most feed text) needs no Unicode property lookups.
        let utf8 = text.utf8
        guard let firstByte = utf8.first, let lastByte = utf8.last else { return nil }
        if firstByte > 0x20 && firstByte < 0x7F && lastByte > 0x20 && lastByte < 0x7F { return text }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return nil }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// `text` cut to at most `maximumBytes` UTF-8 bytes, at a Unicode scalar boundary (never inside a character's
    /// bytes).
    /// - Complexity: O(1) when it fits, else O(*m*) in `maximumBytes`.
    static func cut(_ text: String, toBytes maximumBytes: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > maximumBytes else { return text }
        var end = maximumBytes
        let bytes = Array(utf8.prefix(maximumBytes + 1))
        // Back up over continuation bytes (10xxxxxx) so the cut falls before a lead byte.
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// An optional text trimmed and cut to the budget.
    static func bounded(_ text: String?, _ maximumBytes: Int) -> String? {
        guard let text, let trimmed = trimmed(text) else { return nil }
        return cut(trimmed, toBytes: maximumBytes)
    }

    /// `reference` resolved against `base` (RFC 3986, see `URIResolution`; Foundation's `URL` for text with other
    /// characters), or `reference` itself when it is absolute, there is no base, or it cannot be resolved. `nil`
    /// for an empty reference.
    static func resolve(_ reference: String, against base: String?) -> String? {
        guard let reference = trimmed(reference) else { return nil }
        if hasScheme(reference) { return reference }
        guard let base else { return reference }
        if let resolved = URIResolution.resolve(reference, against: base) { return resolved }
        guard let baseURL = URL(string: base), let resolved = URL(string: reference, relativeTo: baseURL) else {
            return reference
        }
        return resolved.absoluteString
    }

    /// Whether `text` starts with a URI scheme and its colon (``URIResolution/isScheme(_:)`` on what precedes the
    /// first colon).
    private static func hasScheme(_ text: String) -> Bool {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return URIResolution.isScheme(text[..<colon])
    }

    /// `text` with `&`, `<`, `>` (and with `quotes`, `"`) escaped for markup.
    /// - Complexity: O(*n*).
    static func escapedMarkup(_ text: String, quotes: Bool = false) -> String {
        guard text.utf8.contains(where: { needsEscape($0, quotes: quotes) }) else { return text }
        var result: [UInt8] = []
        appendEscapedMarkup(ArraySlice(text.utf8), to: &result, quotes: quotes)
        return String(decoding: result, as: UTF8.self)
    }

    /// Appends UTF-8 `bytes` to `result` with `&`, `<`, `>` (and with `quotes`, `"`) escaped for markup.
    /// - Complexity: O(*n*).
    static func appendEscapedMarkup(_ bytes: ArraySlice<UInt8>, to result: inout [UInt8], quotes: Bool = false) {
        result.reserveCapacity(result.count + bytes.count)
        for byte in bytes {
            guard needsEscape(byte, quotes: quotes) else {
                result.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "&"): result += "&amp;".utf8
            case UInt8(ascii: "<"): result += "&lt;".utf8
            case UInt8(ascii: ">"): result += "&gt;".utf8
            default: result += "&quot;".utf8
            }
        }
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8, quotes: Bool) -> Bool {
        byte == 0x26 || byte == 0x3C || byte == 0x3E || (quotes && byte == 0x22)
    }

    /// A non-negative integer from decimal text (surrounding spaces allowed), else `nil`.
    static func integer(_ text: String?) -> Int? {
        guard let text, let trimmed = trimmed(text), let value = Int(trimmed), value >= 0 else { return nil }
        return value
    }
}
