/// A scan of the XML prolog (declaration, comments, processing instructions, DOCTYPE) before libxml2 sees the
/// bytes: the guard against entity attacks, and the root element's name for format detection.
enum XMLProlog {
    /// What the prolog holds.
    struct Result {
        /// The root element's qualified name, or `nil` when the bytes end before one.
        var rootName: String?
        /// Where the DOCTYPE is, when there is one.
        var doctype: Range<Int>?
        /// The internal text entities it declares, by name (the first declaration of a name wins, as in XML).
        var entities: [String: [UInt8]] = [:]
    }

    /// Scans the prolog up to the root element.
    ///
    /// In a DOCTYPE's internal subset, `<!ENTITY>` declarations must be safe internal text entities (see
    /// `XMLInternalEntities`): anything else is refused, which blocks entity expansion (billion laughs, quadratic
    /// blowup) and external entities (`SYSTEM "file:///etc/passwd"`) before any parsing. Other declarations than
    /// `<!ELEMENT>` in the subset are refused as well (FoundationXML crashed on some; a feed needs none).
    /// - Throws: `.forbiddenEntity`, or `.malformed` for a DOCTYPE that never ends or has other declarations.
    /// - Complexity: O(*p*) in the length of the prolog.
    static func scan(_ bytes: [UInt8]) throws(FeedParseError) -> Result {
        var result = Result()
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if isXMLSpace(byte) {
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "<") else { return result }
            if matches(bytes, at: index, "<?") {
                index = end(of: "?>", in: bytes, from: index + 2) ?? count
            } else if matches(bytes, at: index, "<!--") {
                index = end(of: "-->", in: bytes, from: index + 4) ?? count
            } else if matchesIgnoringCase(bytes, at: index, "<!DOCTYPE") {
                let start = index
                index = try doctypeEnd(bytes, from: index + 9, entities: &result.entities)
                result.doctype = start..<index
            } else if matches(bytes, at: index, "<!") {
                index = end(of: ">", in: bytes, from: index + 2) ?? count
            } else {
                var nameEnd = index + 1
                while nameEnd < count, !isXMLSpace(bytes[nameEnd]), bytes[nameEnd] != UInt8(ascii: ">"),
                    bytes[nameEnd] != UInt8(ascii: "/"), nameEnd - index < 256
                {
                    nameEnd += 1
                }
                let name = String(decoding: bytes[(index + 1)..<nameEnd], as: UTF8.self)
                result.rootName = name.isEmpty ? nil : name
                return result
            }
        }
        return result
    }

    /// The index just past the DOCTYPE's closing `>`, reading its entity declarations into `entities` (refusing
    /// unsafe ones) on the way. Quoted literals and comments are skipped; `[` … `]` is the internal subset.
    private static func doctypeEnd(_ bytes: [UInt8], from start: Int, entities: inout [String: [UInt8]]) throws(FeedParseError) -> Int {
        var declarations = 0
        var index = start
        var inSubset = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard let close = bytes[(index + 1)...].firstIndex(of: byte) else { index = bytes.count; continue }
                // Public and system identifiers never hold markup; a literal that does hides something.
                if bytes[(index + 1)..<close].contains(UInt8(ascii: "<")) {
                    throw FeedParseError(.malformed, "The feed's DOCTYPE has markup inside a quoted literal, which is not accepted.")
                }
                index = close + 1
            case UInt8(ascii: "["):
                inSubset = true
                index += 1
            case UInt8(ascii: "]"):
                inSubset = false
                index += 1
            case UInt8(ascii: ">") where !inSubset:
                return index + 1
            case UInt8(ascii: "<"):
                if matchesIgnoringCase(bytes, at: index, "<!ENTITY") {
                    guard inSubset else {
                        throw FeedParseError(.forbiddenEntity, "The feed's DOCTYPE has an <!ENTITY> declaration outside its internal subset, which is refused.")
                    }
                    declarations += 1
                    guard declarations <= XMLInternalEntities.maximumDeclarations else {
                        throw FeedParseError(
                            .forbiddenEntity,
                            "The feed's DOCTYPE declares more than \(XMLInternalEntities.maximumDeclarations) <!ENTITY> declarations, which is refused.")
                    }
                    let declaration = try XMLInternalEntities.declaration(in: bytes, at: index)
                    if entities[declaration.name] == nil { entities[declaration.name] = declaration.text }
                    index = declaration.end
                    continue
                }
                if matches(bytes, at: index, "<!--") {
                    index = end(of: "-->", in: bytes, from: index + 4) ?? bytes.count
                } else if inSubset && !matchesIgnoringCase(bytes, at: index, "<!ELEMENT") {
                    // FoundationXML, which read feeds before libxml2's SAX2 interface did, crashed on some
                    // attribute-list and notation declarations; a feed needs none, so the internal subset may still
                    // hold element and (safe) entity declarations only.
                    throw FeedParseError(
                        .malformed,
                        "The feed's DOCTYPE has declarations other than <!ELEMENT> (<!ATTLIST>, <!NOTATION> or a processing instruction), which are not accepted; a feed needs no internal DTD subset."
                    )
                } else {
                    index += 1
                }
            default:
                index += 1
            }
        }
        throw FeedParseError(.malformed, "The XML's DOCTYPE declaration never ends.")
    }

    /// Whether `literal` (ASCII) occurs at `index`.
    private static func matches(_ bytes: [UInt8], at index: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { pattern in
            for offset in 0..<count where bytes[index + offset] != pattern[offset] { return false }
            return true
        }
    }

    /// Whether `literal` (ASCII letters compared without case) occurs at `index`.
    private static func matchesIgnoringCase(_ bytes: [UInt8], at index: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { pattern in
            for offset in 0..<count where bytes[index + offset] | 0x20 != pattern[offset] | 0x20 { return false }
            return true
        }
    }

    /// The index just past the first `terminator` at or after `start`, or `nil`.
    private static func end(of terminator: StaticString, in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if matches(bytes, at: index, terminator) { return index + terminator.utf8CodeUnitCount }
            index += 1
        }
        return nil
    }
}
