/// Parses `Accept-Encoding` (RFC 9110 §12.5.3) to decide whether gzip may be sent.
public enum AcceptEncoding {
    /// Whether the header value allows `gzip`: an explicit `gzip` (or `x-gzip`) with q > 0, else `*` with q > 0.
    ///
    /// Reads the bytes in place (no allocation). A `q` that is not a number counts as 0.
    /// - Complexity: O(*n*), where *n* is the header length.
    public static func allowsGzip(_ header: String?) -> Bool {
        guard var header, !header.isEmpty else { return false }
        return header.withUTF8 { bytes in
            var gzip: Bool?
            var star: Bool?
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                if let (coding, positive) = codingAndWeight(bytes[start..<end]) {
                    switch coding {
                    case .gzip: gzip = (gzip ?? false) || positive
                    case .any: star = positive
                    case .other: break
                    }
                }
                start = end + 1
            }
            if let gzip { return gzip }
            return star ?? false
        }
    }

    private enum Coding { case gzip, any, other }

    /// One list element `coding *( OWS ";" OWS name=value )`: its coding and whether its weight is above 0.
    private static func codingAndWeight(_ element: Slice<UnsafeBufferPointer<UInt8>>) -> (Coding, Bool)? {
        var cursor = element.startIndex
        let nameEnd = element[cursor...].firstIndex(of: UInt8(ascii: ";")) ?? element.endIndex
        let name = trimmed(element[cursor..<nameEnd])
        guard !name.isEmpty else { return nil }
        let coding: Coding =
            equalsLowercase(name, "gzip") || equalsLowercase(name, "x-gzip") ? .gzip : equalsLowercase(name, "*") ? .any : .other
        var positive = true
        cursor = nameEnd
        while cursor < element.endIndex {
            let start = cursor + 1
            let end = start < element.endIndex ? element[start...].firstIndex(of: UInt8(ascii: ";")) ?? element.endIndex : element.endIndex
            cursor = end
            let pair = trimmed(element[min(start, end)..<end])
            guard pair.count >= 2, pair[pair.startIndex] | 0x20 == UInt8(ascii: "q"),
                let equals = pair.firstIndex(of: UInt8(ascii: "=")),
                trimmed(pair[pair.startIndex..<equals]).count == 1
            else { continue }
            positive = isPositiveWeight(trimmed(pair[(equals + 1)...]))
        }
        return (coding, positive)
    }

    /// A qvalue (`0`, `0.5`, `1.000`) above zero; anything else is read as 0.
    private static func isPositiveWeight(_ value: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = value.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return false }
        var sawDot = false
        for byte in value.dropFirst() {
            if byte == UInt8(ascii: "."), !sawDot { sawDot = true; continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
        }
        return value.contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
    }

    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { slice.removeFirst() }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { slice.removeLast() }
        return slice
    }

    private static func equalsLowercase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(bytes, expected).allSatisfy { pair in
            let lowered = pair.0 >= UInt8(ascii: "A") && pair.0 <= UInt8(ascii: "Z") ? pair.0 | 0x20 : pair.0
            return lowered == pair.1
        }
    }
}
