/// HTML shown as text, as a feed reader shows a title: markup removed (see `HTMLMarkup`), character references
/// decoded.
enum HTMLText {
    /// `html` as text: its markup removed (tags; comments, CDATA sections, `script` and `style` elements with their
    /// content; see `HTMLMarkup`), then named (see `HTMLEntities`) and numeric character references decoded, white
    /// space runs made one space, trimmed. `nil` when nothing is left.
    /// - Complexity: O(*n*) in the text.
    static func text(_ html: String) -> String? {
        FeedText.trimmed(collapsingSpaces(decodingReferences(HTMLMarkup.removingMarkup(html))))
    }

    /// Whether `text` reads as HTML rather than plain text (feedparser's guess for RSS, whose titles do not say):
    /// it has an end tag (`</b>`) or a character reference (`&amp;`, `&#233;`), and every named reference in it
    /// is a known one.
    /// - Complexity: O(*n*) in the text's UTF-8 bytes.
    static func looksLikeHTML(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let lastClose = bytes.lastIndex(of: UInt8(ascii: ">")) ?? (bytes.contains(UInt8(ascii: "&")) ? -1 : nil) else {
                return false
            }
            var sawMarkup = false
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "<"):
                    if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "/"), HTMLMarkup.isASCIILetter(bytes[index + 2]), lastClose > index + 2 {
                        sawMarkup = true
                    }
                case UInt8(ascii: "&"):
                    var end = index + 1
                    while end < bytes.count, end - index <= 32, bytes[end] != UInt8(ascii: ";") { end += 1 }
                    guard end < bytes.count, bytes[end] == UInt8(ascii: ";"), end > index + 1 else { break }
                    let name = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end])
                    if name[0] == UInt8(ascii: "#") {
                        if name.count > 1 { sawMarkup = true }
                    } else if name.allSatisfy({ HTMLMarkup.isASCIILetter($0) || ($0 >= 0x30 && $0 <= 0x39) }) {
                        // An unknown name means the text is not HTML (feedparser's rule).
                        guard HTMLEntities.character(named: Substring(decoding: name, as: UTF8.self)) != nil else { return false }
                        sawMarkup = true
                    }
                default:
                    break
                }
                index += 1
            }
            return sawMarkup
        }
    }

    /// `text` with `&name;`, `&#123;` and `&#x7B;` replaced by their characters; unknown or broken references stay
    /// as written.
    /// - Complexity: O(*n*).
    static func decodingReferences(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var rest = text[...]
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            if let semicolon = after.prefix(32).firstIndex(of: ";"), let character = reference(after[..<semicolon]) {
                result.append(character)
                rest = after[after.index(after: semicolon)...]
            } else {
                result.append("&")
                rest = after
            }
        }
        result += rest
        return result
    }

    /// The character a reference's body (`amp`, `#233`, `#xE9`) stands for.
    private static func reference(_ body: Substring) -> Character? {
        guard body.first == "#" else { return HTMLEntities.character(named: body) }
        let digits = body.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return Character(scalar)
    }

    /// Runs of white space made one space.
    private static func collapsingSpaces(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        var inSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                if !inSpace { result.unicodeScalars.append(" ") }
                inSpace = true
            } else {
                result.unicodeScalars.append(scalar)
                inSpace = false
            }
        }
        return result
    }
}
