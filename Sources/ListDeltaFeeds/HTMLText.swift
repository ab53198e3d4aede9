/// HTML shown as text, as a feed reader shows a title: tags removed, character references decoded.
enum HTMLText {
    /// `html` as text: every tag, comment and processing instruction removed (`<` followed by a letter, `/`, `!`
    /// or `?`, up to the next `>`), then named (see `HTMLEntities`) and numeric character references decoded, white
    /// space runs made one space, trimmed. `nil` when nothing is left.
    /// - Complexity: O(*n*) in the text.
    static func text(_ html: String) -> String? {
        var withoutTags = ""
        withoutTags.reserveCapacity(html.utf8.count)
        var scalars = html.unicodeScalars[...]
        while let scalar = scalars.first {
            scalars = scalars.dropFirst()
            if scalar == "<", let next = scalars.first, next.properties.isAlphabetic || next == "/" || next == "!" || next == "?" {
                guard let close = scalars.firstIndex(of: ">") else { break }
                scalars = scalars[scalars.index(after: close)...]
                continue
            }
            withoutTags.unicodeScalars.append(scalar)
        }
        return FeedText.trimmed(collapsingSpaces(decodingReferences(withoutTags)))
    }

    /// Whether `text` reads as HTML rather than plain text (feedparser's guess for RSS, whose titles do not say):
    /// it has an end tag (`</b>`) or a character reference (`&amp;`, `&#233;`) whose name is known.
    /// - Complexity: O(*n*) in the text.
    static func looksLikeHTML(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.contains(UInt8(ascii: "<")) || utf8.contains(UInt8(ascii: "&")) else { return false }
        var index = text.startIndex
        var sawMarkup = false
        while let found = text[index...].firstIndex(where: { $0 == "<" || $0 == "&" }) {
            let rest = text[text.index(after: found)...]
            if text[found] == "<" {
                if rest.first == "/", let letter = rest.dropFirst().first, letter.isLetter, rest.contains(">") { sawMarkup = true }
            } else if let semicolon = rest.prefix(32).firstIndex(of: ";") {
                let name = rest[..<semicolon]
                if name.first == "#" {
                    if name.count > 1 { sawMarkup = true }
                } else if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) {
                    // An unknown name means the text is not HTML (feedparser's rule).
                    guard HTMLEntities.character(named: name) != nil else { return false }
                    sawMarkup = true
                }
            }
            index = text.index(after: found)
        }
        return sawMarkup
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
