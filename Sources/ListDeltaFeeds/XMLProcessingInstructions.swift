import Foundation

/// A guard kept from when feeds were read with FoundationXML, which crashes (reading a null pointer) on a
/// processing instruction without data, such as `<?target?>`: such instructions are given a space (`<?target ?>`).
/// libxml2's SAX2 interface, which reads feeds now, is given no processing-instruction callback; the guard stays
/// so that no byte pattern the fuzzer ever crashed a reader with reaches one unchanged. Processing instructions
/// are not content, so nothing a feed says changes.
enum XMLProcessingInstructions {
    /// `bytes` with a space before the `?>` of every `<?name?>`.
    ///
    /// Deliberately context-free: a reader in recovery mode may read a PI where well-formed XML has none (inside a
    /// broken attribute, after a stray `<!--`), so every occurrence is padded, even one inside a CDATA section or a
    /// comment (where it gains a space: rare, and harmless next to a crash).
    /// - Complexity: O(*n*); copies only when something is inserted.
    static func paddingEmpty(_ bytes: [UInt8]) -> [UInt8] {
        var insertions: [Int] = []
        var index = 0
        let count = bytes.count
        while index + 1 < count {
            // `?` is rare in feeds, `<` is not: find each `?` (memchr) and look behind it.
            guard let question = nextQuestionMark(in: bytes, from: index + 1) else { break }
            guard bytes[question - 1] == UInt8(ascii: "<") else {
                index = question
                continue
            }
            index = question - 1
            // The would-be target: up to the first byte no XML name contains.
            var cursor = index + 2
            while cursor < count, !endsName(bytes[cursor]) { cursor += 1 }
            if cursor > index + 2, cursor + 1 < count, bytes[cursor] == UInt8(ascii: "?"), bytes[cursor + 1] == UInt8(ascii: ">") {
                insertions.append(cursor)
            }
            // Resume at the byte that ended the name: it may open the next `<?`.
            index = cursor
        }
        guard !insertions.isEmpty else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(count + insertions.count)
        var start = 0
        for position in insertions {
            result += bytes[start..<position]
            result.append(0x20)
            start = position
        }
        result += bytes[start...]
        return result
    }

    /// The index of the first `?` at or after `start`, or `nil`.
    private static func nextQuestionMark(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base + start, Int32(UInt8(ascii: "?")), buffer.count - start) else {
                return nil
            }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Whether `byte` cannot be part of an XML name (white space, markup and quote characters, NUL).
    @inline(__always)
    private static func endsName(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00, 0x09, 0x0A, 0x0D, 0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "&"),
            UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "!"):
            return true
        default:
            return false
        }
    }
}
