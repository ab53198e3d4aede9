/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Duplicates are kept in order; ``subscript(_:)`` reads the first match.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public typealias Element = (name: String, value: String)

    @usableFromInline var fields: [Element]

    /// Creates an empty header list.
    public init() { self.fields = [] }

    /// Creates headers from a literal such as `["Content-Type": "text/plain"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// The value of the first field named `name` (case-insensitive), or `nil`.
    ///
    /// Setting replaces every field of that name with one field; setting `nil` removes them.
    /// - Complexity: O(*n*), where *n* is the number of fields.
    public subscript(name: String) -> String? {
        get {
            for field in fields where Self.equalsIgnoringCase(field.name, name) { return field.value }
            return nil
        }
        set {
            if let index = fields.firstIndex(where: { Self.equalsIgnoringCase($0.name, name) }) {
                fields.removeAll { Self.equalsIgnoringCase($0.name, name) }
                if let newValue { fields.insert((name: name, value: newValue), at: Swift.min(index, fields.count)) }
            } else if let newValue {
                fields.append((name: name, value: newValue))
            }
        }
    }

    /// Appends a field, keeping existing fields of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Whether a field named `name` exists (case-insensitive).
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison without allocating.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for i in 0..<x.count where x[i] != y[i] {
                    if x[i] | 0x20 != y[i] | 0x20 { return false }
                    let lower = x[i] | 0x20
                    if lower < 0x61 || lower > 0x7A { return false }
                }
                return true
            }
        }
    }
}
