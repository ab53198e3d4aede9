/// A search for one needle in many texts, by UTF-8 bytes (which, UTF-8 being self-synchronising, finds exactly the
/// code-point substrings): Knuth–Morris–Pratt, whose table is built once per needle, so a search never costs more
/// than one pass over the text, whatever the needle and text hold.
struct SubstringSearch: Sendable {
    private let needle: [UInt8]
    /// For each prefix of the needle, the length of its longest proper prefix that is also its suffix.
    private let fallback: [Int]

    /// Prepares a search for `needle`.
    /// - Complexity: O(*m*) for a needle of *m* bytes.
    init(_ needle: String) {
        let bytes = Array(needle.utf8)
        var fallback = [Int](repeating: 0, count: bytes.count)
        var matched = 0
        for index in bytes.indices.dropFirst() {
            while matched > 0, bytes[index] != bytes[matched] { matched = fallback[matched - 1] }
            if bytes[index] == bytes[matched] { matched += 1 }
            fallback[index] = matched
        }
        self.needle = bytes
        self.fallback = fallback
    }

    /// Whether `text` holds the needle.
    /// - Complexity: O(*n*) for a text of *n* bytes.
    func occurs(in text: String) -> Bool {
        guard !needle.isEmpty else { return true }
        var matched = 0
        for byte in text.utf8 {
            while matched > 0, byte != needle[matched] { matched = fallback[matched - 1] }
            if byte == needle[matched] {
                matched += 1
                if matched == needle.count { return true }
            }
        }
        return false
    }
}
