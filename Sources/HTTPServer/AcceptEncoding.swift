/// Parses `Accept-Encoding` (RFC 9110 §12.5.3) to decide whether gzip may be sent.
public enum AcceptEncoding {
    /// Whether the header value allows `gzip`: an explicit `gzip` (or `x-gzip`) with q > 0, else `*` with q > 0.
    /// - Complexity: O(*n*), where *n* is the header length.
    public static func allowsGzip(_ header: String?) -> Bool {
        guard let header, !header.isEmpty else { return false }
        var gzipQ: Double?
        var starQ: Double?
        for part in header.split(separator: ",") {
            var pieces = part.split(separator: ";").makeIterator()
            guard let coding = pieces.next()?.trimmingSpaces().lowercased(), !coding.isEmpty else { continue }
            var q = 1.0
            while let parameter = pieces.next() {
                let kv = parameter.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingSpaces().lowercased() == "q" {
                    q = Double(kv[1].trimmingSpaces()) ?? 0
                }
            }
            switch coding {
            case "gzip", "x-gzip": gzipQ = max(gzipQ ?? 0, q)
            case "*": starQ = q
            default: break
            }
        }
        if let gzipQ { return gzipQ > 0 }
        if let starQ { return starQ > 0 }
        return false
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space).
    /// - Complexity: O(*n*) in the white space removed.
    public func trimmingSpaces() -> Substring {
        var characters = Substring(self)
        while let first = characters.first, first == " " || first == "\t" { characters.removeFirst() }
        while let last = characters.last, last == " " || last == "\t" { characters.removeLast() }
        return characters
    }
}
