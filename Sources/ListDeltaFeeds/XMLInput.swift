import Foundation

/// XML bytes made ready for libxml2: UTF-8, with no entity declaration left (safe internal ones expanded, any
/// other refused), with the name of the root element found on the way.
struct XMLInput {
    /// The bytes to parse: valid UTF-8, with an XML declaration (if any) that says so.
    var bytes: [UInt8]
    /// The root element's qualified name as written (for example `rss`, `rdf:RDF`, `feed`), or `nil` when none.
    var rootName: String?

    /// Checks and converts `raw` so that libxml2 can read it safely.
    ///
    /// UTF-16 (by byte order mark or by its `<` pattern) is transcoded to UTF-8 first. With an encoding declared,
    /// other than UTF-8 or US-ASCII, the bytes are transcoded to UTF-8 and the declaration rewritten. Without a
    /// declaration, `charset` (from HTTP) decides, else UTF-8. The result must be valid UTF-8. Then the prolog is
    /// scanned: a DOCTYPE's safe internal text entities are expanded, any other entity declaration refused (see
    /// `XMLInternalEntities`). Last, processing instructions without data are padded
    /// (see `XMLProcessingInstructions`).
    /// - Complexity: O(*n*) in the bytes.
    static func prepare(_ raw: [UInt8], charset: String?) throws(FeedParseError) -> XMLInput {
        var bytes = raw
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if let utf16 = TextEncodings.utf16Variant(of: bytes) {
            bytes = try TextEncodings.transcode(bytes, from: utf16, name: "UTF-16")
            XMLDeclaration.rewriteEncodingToUTF8(&bytes)
        }
        if let declared = XMLDeclaration.encoding(in: bytes) {
            switch TextEncodings.Choice(name: declared) {
            case .utf8: break
            case .transcode(let encoding) where encoding == .utf16 || encoding == .utf16BigEndian || encoding == .utf16LittleEndian:
                // Read here, the declaration is ASCII: the bytes are not UTF-16 whatever it says.
                XMLDeclaration.rewriteEncodingToUTF8(&bytes)
            case .transcode(let encoding):
                bytes = try TextEncodings.transcode(bytes, from: encoding, name: declared)
                XMLDeclaration.rewriteEncodingToUTF8(&bytes)
            case .unknown:
                throw FeedParseError(.unsupportedEncoding, "The feed declares the encoding \"\(declared.prefix(40))\", which cannot be read; UTF-8 is expected.")
            }
        } else if let charset, !charset.isEmpty {
            switch TextEncodings.Choice(name: charset) {
            case .utf8: break
            case .transcode(let encoding): bytes = try TextEncodings.transcode(bytes, from: encoding, name: charset)
            case .unknown:
                throw FeedParseError(.unsupportedEncoding, "The server announces charset \"\(charset.prefix(40))\", which cannot be read; UTF-8 is expected.")
            }
        }
        // libxml2 sees nothing but UTF-8 (the reader decodes its names and texts as UTF-8).
        if let offset = TextEncodings.firstInvalidUTF8(in: bytes) {
            let line = bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw FeedParseError(
                .malformed,
                "The feed is not valid UTF-8 (line \(line), byte \(offset)); if it is in another encoding, it must say so in its XML declaration or the Content-Type charset.")
        }
        let prolog = try XMLProlog.scan(bytes)
        if let doctype = prolog.doctype, !prolog.entities.isEmpty {
            bytes = try XMLInternalEntities.expand(bytes, doctype: doctype, entities: prolog.entities)
        }
        return XMLInput(bytes: XMLProcessingInstructions.paddingEmpty(bytes), rootName: prolog.rootName)
    }

    /// The first byte that is not a byte order mark or white space, or `nil` when there is none.
    static func firstSignificantByte(_ bytes: [UInt8]) -> UInt8? {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        if TextEncodings.utf16Variant(of: bytes) != nil {
            // The first non-space ASCII character of UTF-16 text: past the mark, one of each pair of bytes is zero.
            return bytes.first { $0 != 0 && $0 != 0xFE && $0 != 0xFF && !isXMLSpace($0) }
        }
        while index < bytes.count {
            if !isXMLSpace(bytes[index]) { return bytes[index] }
            index += 1
        }
        return nil
    }
}

/// Whether `byte` is XML white space (space, tab, carriage return, line feed).
@inline(__always)
func isXMLSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}
