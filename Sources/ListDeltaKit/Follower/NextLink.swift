/// Reads the `rel="next"` target of a `Link` field (RFC 8288): where a long poll's answer says to poll next.
///
/// The server names the next poll on every answer to a poll (a canonical URL that every client at one revision
/// shares, so that a shared cache collapses their polls); the follower sends it verbatim.
enum NextLink {
    /// The target of the first link whose `rel` names `next` (`rel="next"`, `rel=next`, or `next` among several
    /// relation types), or `nil` when there is none.
    /// - Complexity: O(*n*) in the field's length.
    static func target(in field: String?) -> String? {
        guard let field else { return nil }
        var rest = Substring(field)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { return nil }
            let target = rest[rest.index(after: open)..<close]
            let parametersEnd = rest[close...].firstIndex(of: ",").map { $0 } ?? rest.endIndex
            let parameters = rest[rest.index(after: close)..<parametersEnd]
            if relations(in: parameters).contains("next") { return String(target) }
            rest = rest[parametersEnd...]
        }
        return nil
    }

    /// The relation types of a link's parameters (`; rel="a b"`), lowercased.
    private static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: " \t").lowercased() == "rel" else { continue }
            let value = pair[1].trimmingCharacters(in: " \t").trimmingCharacters(in: "\"")
            return value.split(separator: " ").map { $0.lowercased() }
        }
        return []
    }
}

extension Substring {
    /// This text without the characters of `set` at either end.
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var text = self
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return text
    }
}
