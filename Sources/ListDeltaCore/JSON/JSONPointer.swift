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
    /// - Complexity: O(*n*) in the UTF-8 length of `text`.
    public init(parsing text: String) throws(JSONPointerError) {
        guard !text.isEmpty else { self.tokens = []; return }
        // By UTF-8 byte, which is by code point for the ASCII "/", "~", "0" and "1" (no byte of a multi-byte
        // sequence is ASCII): "/" followed by a combining mark is still "/", though not one Character.
        let utf8 = Array(text.utf8)
        guard utf8.first == UInt8(ascii: "/") else { throw JSONPointerError(text: text, reason: "must be empty or start with '/'") }
        var tokens: [String] = []
        var token: [UInt8] = []
        var index = 1
        while index <= utf8.count {
            guard index < utf8.count, utf8[index] != UInt8(ascii: "/") else {
                tokens.append(String(decoding: token, as: UTF8.self))
                token.removeAll(keepingCapacity: true)
                index += 1
                continue
            }
            let byte = utf8[index]
            index += 1
            guard byte == UInt8(ascii: "~") else { token.append(byte); continue }
            switch index < utf8.count ? utf8[index] : nil {
            case UInt8(ascii: "0"): token.append(UInt8(ascii: "~"))
            case UInt8(ascii: "1"): token.append(UInt8(ascii: "/"))
            default: throw JSONPointerError(text: text, reason: "'~' must be followed by '0' or '1'")
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// The text form, with `~` and `/` escaped.
    /// - Complexity: O(*n*) in the total UTF-8 length of the tokens.
    public var description: String {
        var text: [UInt8] = []
        text.reserveCapacity(tokens.reduce(0) { $0 + $1.utf8.count + 1 })
        for token in tokens {
            text.append(UInt8(ascii: "/"))
            for byte in token.utf8 {
                switch byte {
                case UInt8(ascii: "~"): text.append(contentsOf: [UInt8(ascii: "~"), UInt8(ascii: "0")])
                case UInt8(ascii: "/"): text.append(contentsOf: [UInt8(ascii: "~"), UInt8(ascii: "1")])
                default: text.append(byte)
                }
            }
        }
        return String(decoding: text, as: UTF8.self)
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
