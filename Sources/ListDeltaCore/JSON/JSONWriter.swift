import TextFormats

/// Writes `JSONValue`s as compact JSON text (UTF-8), keys in their stored order, through the package's one token
/// writer (``JSONTextWriter``).
public struct JSONWriter: Sendable {
    private var text: JSONTextWriter

    /// The bytes written so far.
    public var bytes: [UInt8] { text.bytes }

    /// Creates an empty writer, reserving `capacity` bytes.
    public init(capacity: Int = 256) {
        text = JSONTextWriter(capacity: capacity)
    }

    /// The compact JSON text of `value`.
    /// - Complexity: O(*n*) in the size of the value.
    public static func bytes(of value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    /// The compact JSON text of `value` as a string.
    public static func string(of value: JSONValue) -> String {
        String(decoding: bytes(of: value), as: UTF8.self)
    }

    /// Appends `value`.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: text.raw("null")
        case .bool(let flag): text.raw(flag ? "true" : "false")
        case .number(let number): text.raw(number.literal)
        case .string(let string): text.string(string)
        case .array(let elements):
            text.beginArray()
            for element in elements { write(element) }
            text.endArray()
        case .object(let object):
            text.beginObject()
            for (key, member) in object.entries {
                text.key(key)
                write(member)
            }
            text.endObject()
        }
    }
}
