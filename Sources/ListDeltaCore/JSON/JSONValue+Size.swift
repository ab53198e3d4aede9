extension JSONValue {
    /// The length of the value's compact JSON text (as ``JSONWriter`` writes it), counted without writing it, or
    /// `nil` once it passes `limit`.
    /// - Complexity: O(min(*n*, `limit`)) in the size of the value: the count stops as soon as it passes.
    public func compactJSONLength(upTo limit: Int) -> Int? {
        var length = 0
        return Self.addLength(of: self, to: &length, limit: limit) ? length : nil
    }

    /// Adds the JSON length of `value` to `length`; `false` once it passes `limit`.
    private static func addLength(of value: JSONValue, to length: inout Int, limit: Int) -> Bool {
        switch value {
        case .null: length += 4
        case .bool(let flag): length += flag ? 4 : 5
        case .number(let number): length += number.literal.utf8.count
        case .string(let text): length += stringLength(text)
        case .array(let elements):
            length += 2 + max(0, elements.count - 1)
            for element in elements {
                guard length <= limit, addLength(of: element, to: &length, limit: limit) else { return false }
            }
        case .object(let object):
            length += 2 + max(0, object.count - 1)
            for (key, member) in object.entries {
                length += stringLength(key) + 1
                guard length <= limit, addLength(of: member, to: &length, limit: limit) else { return false }
            }
        }
        return length <= limit
    }

    /// The length of `text` as a JSON string literal, quotes and escapes included (as ``JSONString`` writes it).
    static func stringLength(_ text: String) -> Int {
        var length = 2
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09: length += 2
            case ..<0x20: length += 6
            default: length += 1
            }
        }
        return length
    }
}
