import TextFormats

/// A minimal JSON writer for problem bodies: objects of strings and integers, properly escaped.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init() { bytes.reserveCapacity(160) }

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")); needsComma = false }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }

    mutating func field(_ key: String, _ value: String) {
        writeKey(key)
        string(value)
    }

    mutating func field(_ key: String, _ value: Int) {
        writeKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    private mutating func writeKey(_ key: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = true
    }

    /// Appends a quoted JSON string (the package's one escaper, ``JSONString``).
    mutating func string(_ value: String) {
        JSONString.append(value, to: &bytes)
    }
}
