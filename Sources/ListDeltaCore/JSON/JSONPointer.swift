/// An RFC 6901 JSON Pointer: a path of reference tokens into a JSON value.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens; empty for the whole document.
    public var tokens: [String]

    /// The pointer to the whole document (`""`).
    public init() { tokens = [] }

    /// A pointer made of the given unescaped tokens.
    public init(tokens: [String]) { self.tokens = tokens }

    /// Parses the text form (`/sections/0/items`), unescaping `~1` and `~0`.
    /// - Throws: `JSONPointerError` when the text does not start with `/` or has a bad `~` escape.
    public init(parsing text: String) throws(JSONPointerError) {
        guard !text.isEmpty else { self.tokens = []; return }
        // By code point: "/" followed by a combining mark or an emoji modifier is one Character, not "/".
        guard text.utf8.first == UInt8(ascii: "/") else { throw JSONPointerError(text: text, reason: "must be empty or start with '/'") }
        var tokens: [String] = []
        // By code point, not by character: "~0" followed by a combining mark is still the escape of "~".
        for raw in text.unicodeScalars.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = String.UnicodeScalarView()
            var iterator = raw.makeIterator()
            while let scalar = iterator.next() {
                guard scalar == "~" else { token.append(scalar); continue }
                switch iterator.next() {
                case "0": token.append("~")
                case "1": token.append("/")
                default: throw JSONPointerError(text: text, reason: "'~' must be followed by '0' or '1'")
                }
            }
            tokens.append(String(token))
        }
        self.tokens = tokens
    }

    /// The text form, with `~` and `/` escaped.
    public var description: String {
        var text = String.UnicodeScalarView()
        for token in tokens {
            text.append("/")
            for scalar in token.unicodeScalars {
                switch scalar {
                case "~": text.append(contentsOf: "~0".unicodeScalars)
                case "/": text.append(contentsOf: "~1".unicodeScalars)
                default: text.append(scalar)
                }
            }
        }
        return String(text)
    }

    /// This pointer with `token` appended.
    public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }

    /// This pointer with an array index appended.
    public func appending(_ index: Int) -> JSONPointer { appending(String(index)) }

    /// This pointer with `token` put first.
    public func prepending(_ token: String) -> JSONPointer { JSONPointer(tokens: [token] + tokens) }

    /// The pointer to the parent, or `nil` for the whole document.
    public var parent: JSONPointer? { tokens.isEmpty ? nil : JSONPointer(tokens: Array(tokens.dropLast())) }

    /// `true` when `other` is this pointer or lies below it.
    public func isPrefix(of other: JSONPointer) -> Bool {
        other.tokens.count >= tokens.count && Array(other.tokens.prefix(tokens.count)) == tokens
    }
}

/// A JSON Pointer's text could not be parsed.
public struct JSONPointerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text that was given.
    public var text: String
    /// What is wrong with it.
    public var reason: String

    public var description: String { "invalid JSON Pointer \"\(text)\": \(reason)" }
}
