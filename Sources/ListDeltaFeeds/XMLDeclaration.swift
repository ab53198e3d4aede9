/// The XML declaration (`<?xml version="1.0" encoding="…"?>`) at the start of ASCII-compatible bytes.
enum XMLDeclaration {
    /// The range of the declaration, when the bytes start with one (after white space).
    static func range(in bytes: [UInt8]) -> Range<Int>? {
        var start = 0
        while start < bytes.count, isXMLSpace(bytes[start]) { start += 1 }
        guard bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        let limit = min(bytes.count, start + 512)
        var index = start + 5
        while index + 1 < limit {
            if bytes[index] == UInt8(ascii: "?") && bytes[index + 1] == UInt8(ascii: ">") { return start..<(index + 2) }
            index += 1
        }
        return nil
    }

    /// The range of the `encoding` pseudo-attribute's value, inside its quotes.
    private static func encodingValueRange(in bytes: [UInt8]) -> Range<Int>? {
        guard let declaration = range(in: bytes) else { return nil }
        let key = Array("encoding".utf8)
        var index = declaration.lowerBound
        while index + key.count <= declaration.upperBound {
            if bytes[index..<(index + key.count)].elementsEqual(key) {
                var cursor = index + key.count
                while cursor < declaration.upperBound, isXMLSpace(bytes[cursor]) { cursor += 1 }
                guard cursor < declaration.upperBound, bytes[cursor] == UInt8(ascii: "=") else { return nil }
                cursor += 1
                while cursor < declaration.upperBound, isXMLSpace(bytes[cursor]) { cursor += 1 }
                guard cursor < declaration.upperBound else { return nil }
                let quote = bytes[cursor]
                guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
                let valueStart = cursor + 1
                guard let valueEnd = bytes[valueStart..<declaration.upperBound].firstIndex(of: quote) else { return nil }
                return valueStart..<valueEnd
            }
            index += 1
        }
        return nil
    }

    /// The declared encoding name, or `nil` when there is no declaration or it names none.
    static func encoding(in bytes: [UInt8]) -> String? {
        guard let range = encodingValueRange(in: bytes) else { return nil }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// Makes the declaration say `UTF-8` (after the bytes were transcoded).
    static func rewriteEncodingToUTF8(_ bytes: inout [UInt8]) {
        guard let range = encodingValueRange(in: bytes) else { return }
        bytes.replaceSubrange(range, with: Array("UTF-8".utf8))
    }
}
