/// A JSON value as ListDelta reads, stores and writes it.
///
/// Objects keep their keys in the order they were read (so documents round-trip as written) but compare
/// without regard to key order, as docs/api.md requires. Numbers keep their literal text, so large integers and
/// exact decimals survive a round trip; two numbers are equal when their literals or their values are equal.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON number: its literal text and its value as a `Double`.
public struct JSONNumber: Sendable, CustomStringConvertible {
    /// The literal as it appears in JSON text (for example `12`, `-0.5`, `1e3`).
    public let literal: String

    /// The value of the literal as a `Double` (may round very large or very precise numbers).
    ///
    /// Computed when asked, not stored: a number is read far more often than its value is needed (only to compare
    /// numbers written differently), and the literal alone keeps every `JSONValue` small.
    /// - Complexity: O(*d*) in the literal's digits.
    public var value: Double { Double(literal) ?? 0 }

    /// Creates a number from an integer.
    public init(_ integer: Int) {
        self.literal = String(integer)
    }

    /// Creates a number from a `Double`; non-finite values become `0` (JSON has no NaN or infinity).
    public init(_ double: Double) {
        let finite = double.isFinite ? double : 0
        if finite == finite.rounded(), abs(finite) < 1e15 {
            self.literal = String(Int64(finite))
        } else {
            self.literal = String(finite)
        }
    }

    /// Creates a number from a literal already checked against JSON's number grammar.
    init(validatedLiteral: String) {
        self.literal = validatedLiteral
    }

    /// The value as an `Int` when the literal is an integer that fits, else `nil`.
    public var intValue: Int? {
        if let exact = Int(literal) { return exact }
        let value = self.value
        if value == value.rounded(), abs(value) < 9.0e15 { return Int(value) }
        return nil
    }

    public var description: String { literal }
}

extension JSONNumber: Equatable {
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.literal == rhs.literal || lhs.value == rhs.value
    }
}

extension JSONValue: Equatable {
    /// Structural equality; object keys compare without regard to order.
    /// - Complexity: O(*n* log *n*) in the size of the values at worst (sorting large objects' keys).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }
}

extension JSONValue {
    /// The string payload, or `nil` for other kinds.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object payload, or `nil` for other kinds.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array payload, or `nil` for other kinds.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// `true` for `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The nesting depth: 0 for scalars, 1 for an empty array or object, and one more per level.
    /// - Complexity: O(*n*) in the size of the value.
    public var depth: Int {
        switch self {
        case .array(let values): return 1 + (values.lazy.map(\.depth).max() ?? 0)
        case .object(let object): return 1 + (object.entries.lazy.map(\.value.depth).max() ?? 0)
        default: return 0
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}
