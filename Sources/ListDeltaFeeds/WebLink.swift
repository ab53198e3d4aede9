/// The links a page may put into an `href`: absolute `http` and `https` URLs only.
///
/// A feed is untrusted input: a `javascript:`, `vbscript:` or `data:` link runs in the page that shows it, and a
/// `file:` link points into the reader's own machine. An entry's link (and a feed's, and an enclosure's URL) is
/// therefore kept only when it resolves to a web URL; otherwise the next candidate a reader would use is tried, and
/// without one the link is `nil`. A relative link that cannot be made absolute (no base) is not a web URL either.
enum WebLink {
    /// `reference` resolved against `base` (see `FeedText.resolve`) when the result is an absolute `http` or
    /// `https` URL, its scheme lower-cased (`HTTP://` is `http://`), else `nil`.
    /// - Complexity: O(*n*) in the lengths of both.
    static func resolve(_ reference: String, against base: String?) -> String? {
        guard var resolved = FeedText.resolve(reference, against: base) else { return nil }
        guard let schemeLength = resolved.withUTF8(webSchemeLength) else { return nil }
        let utf8 = resolved.utf8
        let schemeEnd = utf8.index(utf8.startIndex, offsetBy: schemeLength)
        guard utf8[..<schemeEnd].contains(where: { $0 < UInt8(ascii: "a") }) else { return resolved }
        return resolved[..<schemeEnd].lowercased() + resolved[schemeEnd...]
    }

    /// Whether `url` is `http://` or `https://` (the scheme in any case) and a host: an authority that is not
    /// empty and holds `[` and `]` only around an IP literal (`http://[2001:db8::1]/`).
    /// - Complexity: O(*a*) in the length of the authority.
    static func isWeb(_ url: String) -> Bool {
        var url = url
        return url.withUTF8(webSchemeLength) != nil
    }

    /// The length of the scheme (4 or 5) when `bytes` are a web URL (see `isWeb`), else `nil`.
    private static func webSchemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count > 7, bytes[0] | 0x20 == UInt8(ascii: "h"), bytes[1] | 0x20 == UInt8(ascii: "t"),
            bytes[2] | 0x20 == UInt8(ascii: "t"), bytes[3] | 0x20 == UInt8(ascii: "p")
        else { return nil }
        let length = bytes[4] | 0x20 == UInt8(ascii: "s") ? 5 : 4
        guard bytes.count > length + 3, bytes[length] == UInt8(ascii: ":"), bytes[length + 1] == UInt8(ascii: "/"),
            bytes[length + 2] == UInt8(ascii: "/")
        else { return nil }
        return hasHost(UnsafeBufferPointer(rebasing: bytes[(length + 3)...])) ? length : nil
    }

    /// Whether what follows `scheme://` starts with an authority (`user@host:port`, up to `/`, `?`, `#` or the end)
    /// that names a host, brackets only around an IP literal.
    private static func hasHost(_ rest: UnsafeBufferPointer<UInt8>) -> Bool {
        var hostStart = 0
        var bracketsOK = true
        var index = 0
        while index < rest.count {
            switch rest[index] {
            case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"):
                return bracketsOK && isHost(rest, from: hostStart, to: index)
            case UInt8(ascii: "@"):
                hostStart = index + 1
                bracketsOK = true
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                bracketsOK = bracketsOK && isIPLiteralBracket(rest, at: index, hostStart: hostStart)
            default:
                break
            }
            index += 1
        }
        return bracketsOK && isHost(rest, from: hostStart, to: rest.count)
    }

    /// A host is not empty and does not start with its port's `:`.
    private static func isHost(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        start < end && bytes[start] != UInt8(ascii: ":")
    }

    /// A `[` only at the host's start, a `]` only after that `[` (and once).
    private static func isIPLiteralBracket(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, hostStart: Int) -> Bool {
        if bytes[index] == UInt8(ascii: "[") { return index == hostStart }
        guard bytes[hostStart] == UInt8(ascii: "[") else { return false }
        return !bytes[(hostStart + 1)..<index].contains(UInt8(ascii: "]"))
    }
}
