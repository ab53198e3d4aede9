/// Writes JSON text (UTF-8) token by token, placing the commas itself: the one writer under the core's
/// `JSONWriter` (documents and diffs) and the HTTP layer's problem bodies.
///
/// Call ``beginObject()``/``endObject()`` and ``beginArray()``/``endArray()`` around their members, ``key(_:)``
/// before each member's value, and a value method for each value. It checks nothing: the caller writes a well-formed
/// sequence.
public struct JSONTextWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value or key follows another in the same container (and so needs a comma).
    private var needsComma = false

    /// Creates an empty writer, reserving `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// `{`.
    public mutating func beginObject() { open(UInt8(ascii: "{")) }

    /// `}`.
    public mutating func endObject() { close(UInt8(ascii: "}")) }

    /// `[`.
    public mutating func beginArray() { open(UInt8(ascii: "[")) }

    /// `]`.
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member's key and its colon; the member's value comes next.
    public mutating func key(_ key: String) {
        separate()
        JSONString.append(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value, escaped (``JSONString``).
    public mutating func string(_ value: String) {
        separate()
        JSONString.append(value, to: &bytes)
        needsComma = true
    }

    /// Text that is already a valid JSON value (a literal, a number, a rendered fragment).
    public mutating func raw(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private mutating func open(_ byte: UInt8) {
        separate()
        bytes.append(byte)
        needsComma = false
    }

    private mutating func close(_ byte: UInt8) {
        bytes.append(byte)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
