/// RFC 3986 reference resolution (section 5.2) for references and bases written with URI characters only, the
/// common case, without Foundation's `URL` (which `FeedText.resolve` falls back to for anything else).
enum URIResolution {
    /// `reference` resolved against the absolute `base`, or `nil` when either holds a character outside URIs
    /// (space, non-ASCII, `<>"{}|\^` and backtick) or `base` has no scheme.
    /// - Complexity: O(*n*) in the lengths of both.
    static func resolve(_ reference: String, against base: String) -> String? {
        guard isURIText(reference), isURIText(base) else { return nil }
        let baseParts = Parts(base)
        guard baseParts.scheme != nil else { return nil }
        let ref = Parts(reference)
        var target = Parts(scheme: baseParts.scheme, authority: nil, path: "", query: nil, fragment: ref.fragment)
        if let authority = ref.authority {
            target.authority = authority
            target.path = Substring(removingDotSegments(ref.path))
            target.query = ref.query
        } else {
            target.authority = baseParts.authority
            if ref.path.isEmpty {
                target.path = baseParts.path
                target.query = ref.query ?? baseParts.query
            } else {
                if ref.path.utf8.first == UInt8(ascii: "/") {
                    target.path = Substring(removingDotSegments(ref.path))
                } else {
                    target.path = Substring(removingDotSegments(Substring(merge(baseParts, ref.path))))
                }
                target.query = ref.query
            }
        }
        return target.text
    }

    /// A URI's five components (RFC 3986 appendix B), as slices of the text.
    struct Parts {
        var scheme: Substring?
        var authority: Substring?
        var path: Substring
        var query: Substring?
        var fragment: Substring?

        init(scheme: Substring?, authority: Substring?, path: Substring, query: Substring?, fragment: Substring?) {
            (self.scheme, self.authority, self.path, self.query, self.fragment) = (scheme, authority, path, query, fragment)
        }

        /// Splits `text`, which holds URI characters only (ASCII), so byte positions are character positions: the
        /// searches run over the UTF-8 bytes, without grapheme breaking.
        init(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
                fragment = rest[rest.index(after: hash)...]
                rest = rest[..<hash]
            }
            if let question = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
                query = rest[rest.index(after: question)...]
                rest = rest[..<question]
            }
            if let colon = rest.utf8.firstIndex(of: UInt8(ascii: ":")), URIResolution.isScheme(rest[..<colon]) {
                scheme = rest[..<colon]
                rest = rest[rest.index(after: colon)...]
            }
            if rest.utf8.starts(with: "//".utf8) {
                let afterSlashes = rest.utf8.index(rest.startIndex, offsetBy: 2)
                let end = rest[afterSlashes...].utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
                authority = rest[afterSlashes..<end]
                rest = rest[end...]
            }
            path = rest
        }

        var text: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority { result += "//" + authority }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }
    }

    /// RFC 3986 5.2.3: the base's path up to its last `/`, then the reference's.
    private static func merge(_ base: Parts, _ path: Substring) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return String(path) }
        return String(base.path[...slash] + path)
    }

    /// RFC 3986 5.2.4: `.` and `..` segments removed.
    static func removingDotSegments(_ path: Substring) -> String {
        guard path.utf8.contains(UInt8(ascii: ".")) else { return String(path) }
        var output: [Substring] = []
        let absolute = path.utf8.first == UInt8(ascii: "/")
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst(absolute ? 1 : 0)
            .map { Substring($0) }
        for (offset, segment) in segments.enumerated() {
            let last = offset == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }

    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A else { return false }
        return text.utf8.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2B || byte == 0x2D || byte == 0x2E
        }
    }

    /// Whether every byte is one a URI may hold as written.
    private static func isURIText(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x3C && byte != 0x3E && byte != 0x5C && byte != 0x5E
                && byte != 0x60 && byte != 0x7B && byte != 0x7C && byte != 0x7D
        }
    }
}
