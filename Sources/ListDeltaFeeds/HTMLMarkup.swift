/// Finds the markup in HTML that a page does not show as text: tags, comments, CDATA sections, and the whole of
/// each `script` and `style` element (its content is code, not text).
enum HTMLMarkup {
    /// `html` with every hidden part removed (see `endOfHiddenPart`); everything else is kept byte for byte.
    /// - Complexity: O(*n*) in the UTF-8 bytes.
    static func removingMarkup(_ html: String) -> String {
        var html = html
        return html.withUTF8 { bytes in
            guard bytes.contains(UInt8(ascii: "<")) else { return String(decoding: bytes, as: UTF8.self) }
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "<"), let end = endOfHiddenPart(bytes, at: index) {
                    index = end
                } else {
                    text.append(bytes[index])
                    index += 1
                }
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// Where the hidden part that the `<` at `start` opens ends (the index after it), or `nil` when that `<` is
    /// text. A part left open runs to the end, as it does in a browser.
    ///
    /// - `<!--` opens a comment, to the next `-->` (`<!-->` is an empty one);
    /// - `<![CDATA[` opens a CDATA section, to the next `]]>`;
    /// - `<script` or `<style` (any case) followed by white space, `/` or `>` opens an element whose content runs to
    ///   its end tag (`</script` or `</style` followed by white space, `/` or `>`), up to that tag's `>`;
    /// - any other `<` followed by an ASCII letter, `/`, `!` or `?` is a tag, to the next `>`.
    static func endOfHiddenPart(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        let next = start + 1
        guard next < bytes.count else { return nil }
        if hasPrefix(bytes, at: next, "!--".utf8) {
            return end(of: "-->".utf8, in: bytes, from: next + 1)
        }
        if hasPrefix(bytes, at: next, "![CDATA[".utf8) {
            return end(of: "]]>".utf8, in: bytes, from: next + 8)
        }
        let first = bytes[next]
        guard isASCIILetter(first) || first == UInt8(ascii: "/") || first == UInt8(ascii: "!") || first == UInt8(ascii: "?") else {
            return nil
        }
        let tagEnd = end(of: ">".utf8, in: bytes, from: next)
        for name in rawTextElements where hasName(bytes, at: next, name) {
            return endTag(name, in: bytes, from: tagEnd)
        }
        return tagEnd
    }

    /// The elements whose content is not text (HTML's raw text elements that feeds carry).
    private static let rawTextElements = ["script", "style"]

    /// The index after the end tag of `name` (`</name` then white space, `/` or `>`, up to the next `>`) at or after
    /// `start`, or the end of `bytes` without one.
    private static func endTag(_ name: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "/"), hasName(bytes, at: index + 2, name) {
                return end(of: ">".utf8, in: bytes, from: index + 2)
            }
            index += 1
        }
        return bytes.count
    }

    /// Whether `name` (lower-case ASCII) starts at `start`, in any case, followed by white space, `/`, `>` or the end.
    private static func hasName(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, _ name: String) -> Bool {
        var index = start
        for expected in name.utf8 {
            guard index < bytes.count, bytes[index] | 0x20 == expected else { return false }
            index += 1
        }
        guard index < bytes.count else { return true }
        let after = bytes[index]
        return after == UInt8(ascii: "/") || after == UInt8(ascii: ">") || after == 0x20 || after == 0x09 || after == 0x0A
            || after == 0x0C || after == 0x0D
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, _ prefix: String.UTF8View) -> Bool {
        var index = start
        for expected in prefix {
            guard index < bytes.count, bytes[index] == expected else { return false }
            index += 1
        }
        return true
    }

    /// The index after the first `delimiter` at or after `start`, or the end of `bytes` without one.
    private static func end(of delimiter: String.UTF8View, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            if hasPrefix(bytes, at: index, delimiter) { return index + delimiter.count }
            index += 1
        }
        return bytes.count
    }

    @inline(__always)
    static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
