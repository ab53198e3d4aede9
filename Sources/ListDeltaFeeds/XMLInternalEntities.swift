/// Internal text entities a DOCTYPE may declare, expanded before libxml2 reads the document.
///
/// Accepted: `<!ENTITY name "text">` (or `'text'`) whose text holds no markup (`<`), no entity reference (`&name;`)
/// and no parameter-entity reference (`%`); character references (`&#233;`) are allowed. Refused, as
/// `.forbiddenEntity`: parameter entities (`<!ENTITY % …>`), external entities (`SYSTEM`, `PUBLIC`), an entity
/// whose text refers to another entity (the billion laughs), and a document whose references would expand to more
/// than `maximumExpansion` bytes in all (the quadratic blowup). The expansion is done here, in the bytes, and the
/// DOCTYPE is blanked (each of its bytes but line breaks made a space), so libxml2 never sees a declaration.
enum XMLInternalEntities {
    /// The most bytes all references together may expand to.
    static let maximumExpansion = 64 * 1024
    /// The most entities a DOCTYPE may declare.
    static let maximumDeclarations = 256

    /// Reads the declaration that starts at `start` (at `<!ENTITY`) and returns its name, its text and the index
    /// just past its `>`.
    /// - Throws: `.forbiddenEntity` for anything but a safe internal text entity, `.malformed` for a broken one.
    /// - Complexity: O(*d*) in the length of the declaration.
    static func declaration(in bytes: [UInt8], at start: Int) throws(FeedParseError) -> (name: String, text: [UInt8], end: Int) {
        var index = start + 8
        skipSpaces(bytes, &index)
        if index < bytes.count, bytes[index] == UInt8(ascii: "%") {
            throw refusal("declares a parameter entity")
        }
        let nameStart = index
        while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        guard index > nameStart else { throw FeedParseError(.malformed, "The feed's DOCTYPE has an <!ENTITY> declaration without a name.") }
        let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
        skipSpaces(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw refusal("declares an external entity (\(name): SYSTEM or PUBLIC)")
        }
        let quote = bytes[index]
        guard let close = bytes[(index + 1)...].firstIndex(of: quote) else {
            throw FeedParseError(.malformed, "The feed's <!ENTITY \(name.prefix(40))> declaration never ends.")
        }
        let text = Array(bytes[(index + 1)..<close])
        try checkText(text, of: name)
        index = close + 1
        skipSpaces(bytes, &index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
            throw refusal("declares an entity that is not plain text (\(name.prefix(40)): NDATA or more after its value)")
        }
        return (name, text, index + 1)
    }

    /// `bytes` with the DOCTYPE in `doctype` blanked and every `&name;` of a declared entity outside comments,
    /// CDATA sections and processing instructions replaced by its text (quotes written as references, so that
    /// the text is the same in content and in attribute values).
    /// - Throws: `.forbiddenEntity` when the expansion would pass `maximumExpansion` bytes.
    /// - Complexity: O(*n* + *e*) in the bytes and the expansion.
    static func expand(_ bytes: [UInt8], doctype: Range<Int>, entities: [String: [UInt8]]) throws(FeedParseError) -> [UInt8] {
        var replacements: [String: [UInt8]] = [:]
        // The five predefined entities keep their meaning whatever a DOCTYPE says.
        for (name, text) in entities where !["amp", "lt", "gt", "quot", "apos"].contains(name) {
            var escaped: [UInt8] = []
            for byte in text {
                switch byte {
                case UInt8(ascii: "\""): escaped += Array("&quot;".utf8)
                case UInt8(ascii: "'"): escaped += Array("&apos;".utf8)
                default: escaped.append(byte)
                }
            }
            replacements[name] = escaped
        }
        var result = Array(bytes[..<doctype.lowerBound])
        result.reserveCapacity(bytes.count + 1_024)
        for byte in bytes[doctype] { result.append(byte == 0x0A || byte == 0x0D ? byte : 0x20) }
        var expanded = 0
        var index = doctype.upperBound
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), let skipped = skippedSection(bytes, at: index) {
                result += bytes[index..<skipped]
                index = skipped
            } else if byte == UInt8(ascii: "&"), let (name, end) = reference(bytes, at: index), let text = replacements[name] {
                expanded += text.count
                guard expanded <= maximumExpansion else {
                    throw refusal("declares entities whose references expand to more than \(maximumExpansion / 1024) KiB")
                }
                result += text
                index = end
            } else {
                result.append(byte)
                index += 1
            }
        }
        return result
    }

    /// The index past a comment, CDATA section or processing instruction starting at `index`, or `nil`.
    private static func skippedSection(_ bytes: [UInt8], at index: Int) -> Int? {
        for (open, close) in [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>")] where starts(bytes, at: index, open) {
            var cursor = index + open.utf8.count
            while cursor < bytes.count, !starts(bytes, at: cursor, close) { cursor += 1 }
            return min(bytes.count, cursor + close.utf8.count)
        }
        return nil
    }

    /// The name of the entity reference `&name;` at `index` and the index past its `;`.
    private static func reference(_ bytes: [UInt8], at index: Int) -> (String, Int)? {
        var cursor = index + 1
        while cursor < bytes.count, cursor - index <= 256, isNameByte(bytes[cursor]) { cursor += 1 }
        guard cursor > index + 1, cursor < bytes.count, bytes[cursor] == UInt8(ascii: ";") else { return nil }
        return (String(decoding: bytes[(index + 1)..<cursor], as: UTF8.self), cursor + 1)
    }

    /// Refuses text with markup, entity references or parameter-entity references.
    private static func checkText(_ text: [UInt8], of name: String) throws(FeedParseError) {
        for (offset, byte) in text.enumerated() {
            switch byte {
            case UInt8(ascii: "<"): throw refusal("declares an entity with markup in its text (\(name.prefix(40)))")
            case UInt8(ascii: "%"): throw refusal("declares an entity that refers to a parameter entity (\(name.prefix(40)))")
            case UInt8(ascii: "&") where offset + 1 >= text.count || text[offset + 1] != UInt8(ascii: "#"):
                throw refusal("declares an entity that refers to another entity (\(name.prefix(40)))")
            default: continue
            }
        }
    }

    private static func refusal(_ what: String) -> FeedParseError {
        FeedParseError(
            .forbiddenEntity,
            "The feed's DOCTYPE \(what), which is refused (<!ENTITY> declarations may only name plain text, up to \(maximumExpansion / 1024) KiB expanded in all).")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    private static func skipSpaces(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, isXMLSpace(bytes[index]) { index += 1 }
    }

    private static func starts(_ bytes: [UInt8], at index: Int, _ literal: String) -> Bool {
        let pattern = literal.utf8
        guard index + pattern.count <= bytes.count else { return false }
        return bytes[index..<(index + pattern.count)].elementsEqual(pattern)
    }
}
