/// Percent-decoding of URI components and query parsing.
enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusIsSpace`).
    /// - Returns: The decoded string, or `nil` for a malformed escape, a decoded NUL or invalid UTF-8.
    /// - Complexity: O(*n*), where *n* is the input length.
    static func decode<S: StringProtocol>(_ input: S, plusIsSpace: Bool = false) -> String? {
        let hasEscape = input.utf8.contains { byte in
            byte == UInt8(ascii: "%") || byte == 0 || (plusIsSpace && byte == UInt8(ascii: "+"))
        }
        if !hasEscape { return String(input) }
        var utf8 = input.utf8.makeIterator()
        var out: [UInt8] = []
        out.reserveCapacity(input.utf8.count)
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let hi = utf8.next().flatMap(hexValue), let lo = utf8.next().flatMap(hexValue) else { return nil }
                let value = hi << 4 | lo
                if value == 0 { return nil }
                out.append(value)
            case UInt8(ascii: "+") where plusIsSpace: out.append(UInt8(ascii: " "))
            case 0: return nil
            default: out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A parsed query: each name's last value, and the names given more than once.
    struct Query: Equatable {
        var parameters: [String: String] = [:]
        /// Names that occurred more than once, in the order of their second occurrence.
        var repeatedNames: [String] = []
    }

    /// Parses `a=1&b=x+y&flag`: names and values percent-decoded, `+` is a space, the last value wins (and a
    /// repeated name is noted).
    /// - Returns: The query, or `nil` when any component is malformed.
    /// - Complexity: O(*n*), where *n* is the query length.
    static func parseQuery(_ query: Substring) -> Query? {
        var result = Query()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0], plusIsSpace: true) else { return nil }
            let value = parts.count > 1 ? decode(parts[1], plusIsSpace: true) : ""
            guard let value else { return nil }
            guard !name.isEmpty else { continue }
            if result.parameters.updateValue(value, forKey: name) != nil, !result.repeatedNames.contains(name) {
                result.repeatedNames.append(name)
            }
        }
        return result
    }
}

/// A request target's shape, found in one pass over its bytes: where the path ends, whether the path needs
/// percent-decoding, and whether a query follows.
struct RequestTargetShape {
    /// The length of the path in bytes (up to the first `?` or `#`).
    let pathLength: Int
    /// Whether the path holds a `%` escape or a NUL (so it must go through ``PercentDecoding/decode(_:plusIsSpace:)``).
    let pathNeedsDecoding: Bool
    /// Whether the path ends at a `?`.
    let hasQuery: Bool

    /// - Complexity: O(*n*) in the path's length.
    init(_ target: UnsafeBufferPointer<UInt8>) {
        var needsDecoding = false
        var end = 0
        while end < target.count {
            let byte = target[end]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "%") || byte == 0 { needsDecoding = true }
            end += 1
        }
        pathLength = end
        pathNeedsDecoding = needsDecoding
        hasQuery = end < target.count && target[end] == UInt8(ascii: "?")
    }
}
