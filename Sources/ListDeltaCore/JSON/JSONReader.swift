/// Reads JSON text (RFC 8259) into `JSONValue`s.
///
/// A strict, allocation-light reader: invalid UTF-8, control characters in strings, duplicate object keys,
/// leading zeros, trailing commas and trailing garbage are errors, and nesting is bounded so no input can
/// exhaust the stack.
public struct JSONReader: Sendable {
    /// The deepest nesting accepted. The default is 64.
    public var maximumDepth: Int

    /// Creates a reader.
    /// - Parameter maximumDepth: the deepest nesting of arrays and objects accepted.
    public init(maximumDepth: Int = 64) {
        self.maximumDepth = maximumDepth
    }

    /// Reads one JSON value that spans the whole of `bytes` (surrounding white space allowed).
    /// - Throws: `JSONReadError`.
    /// - Complexity: O(*n*) for *n* bytes.
    public func read(_ bytes: some Collection<UInt8>) throws(JSONReadError) -> JSONValue {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONReadError) -> JSONValue in try Self.parse(buffer, maximumDepth: maximumDepth) }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONReadError) -> JSONValue in try Self.parse(buffer, maximumDepth: maximumDepth) }
        }.get()
    }

    /// Reads one JSON value from a string.
    /// - Throws: `JSONReadError`.
    public func read(_ text: String) throws(JSONReadError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONReadError) -> JSONValue in try Self.parse(buffer, maximumDepth: maximumDepth) }
        }
        return try result.get()
    }

    private static func parse(_ buffer: UnsafeBufferPointer<UInt8>, maximumDepth: Int) throws(JSONReadError) -> JSONValue {
        var scanner = JSONScanner(bytes: buffer, maximumDepth: maximumDepth)
        scanner.skipWhitespace()
        let value = try scanner.readValue(depth: 0)
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.malformed("unexpected data after the JSON value") }
        return value
    }
}
