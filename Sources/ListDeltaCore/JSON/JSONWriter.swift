import TextFormats

/// Writes `JSONValue`s as compact JSON text (UTF-8), keys in their stored order.
public struct JSONWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty writer, reserving `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
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
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number): writeRaw(number.literal)
        case .string(let string): write(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for (key, member) in object.entries {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(key)
                bytes.append(UInt8(ascii: ":"))
                write(member)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `string` as a JSON string literal (through the package's one escaper, ``JSONString``).
    public mutating func write(_ string: String) {
        JSONString.append(string, to: &bytes)
    }

    /// Appends text that is already valid JSON (a literal, a number, a pre-rendered fragment).
    public mutating func writeRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
