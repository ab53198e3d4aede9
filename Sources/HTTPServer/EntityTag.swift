import TextFormats

/// Strong entity tags, one per coding (RFC 9110 §8.8.3): the one place that knows the server's rule that a gzip'd
/// body's tag is its plain tag with `-gzip` inside the quotes (`"7"` → `"7-gzip"`).
///
/// The server applies the rule itself when it gzips a handler's body on the way out (``gzipVariant(of:)``), so a
/// 200 states only its plain tag. A handler that answers 304 itself names the tag of the coding the client would
/// have got, with ``fieldValue(of:gzipped:)``. Handlers read conditional fields with
/// ``conditions(in:strong:)``, which maps either coding's tag back to the plain opaque value.
public enum EntityTag {
    /// What an `If-Match` or `If-None-Match` field names.
    public enum Conditions: Sendable, Equatable {
        /// `*`: any current representation.
        case any
        /// The opaque values (without quotes, `W/` or the coding suffix) of the well-formed tags, in order;
        /// malformed members are skipped.
        case tags([String])
    }

    /// The suffix a gzip'd representation's opaque value carries.
    static let gzipSuffix = "-gzip"

    /// The `ETag` value of the representation with opaque value `opaque`, gzip'd or not: `"7"` or `"7-gzip"`.
    public static func fieldValue(of opaque: String, gzipped: Bool) -> String {
        gzipped ? "\"\(opaque)\(gzipSuffix)\"" : "\"\(opaque)\""
    }

    /// A handler's `ETag` value (a quoted tag) turned into the tag of its gzip'd body; other values as they are.
    static func gzipVariant(of fieldValue: String) -> String {
        guard fieldValue.hasPrefix("\""), fieldValue.hasSuffix("\""), fieldValue.utf8.count >= 2 else { return fieldValue }
        return String(fieldValue.dropLast()) + gzipSuffix + "\""
    }

    /// Parses an `If-Match` / `If-None-Match` value: `*`, or a comma-separated list of `"tag"` / `W/"tag"`.
    /// - Parameter strong: Whether the field is compared strongly (`If-Match`, RFC 9110 §13.1.1): a weak tag
    ///   then matches nothing and is left out.
    /// - Returns: `nil` when the field is absent.
    /// - Complexity: O(*n*) in the field's length.
    public static func conditions(in field: String?, strong: Bool = false) -> Conditions? {
        guard let field else { return nil }
        let trimmed = field.trimmingSpaces()
        if trimmed == "*" { return .any }
        var tags: [String] = []
        for part in trimmed.split(separator: ",") {
            var tag = Substring(part).trimmingSpaces()
            if tag.hasPrefix("W/") {
                if strong { continue }
                tag = tag.dropFirst(2)
            }
            guard tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") else { continue }
            var opaque = tag.dropFirst().dropLast()
            if opaque.hasSuffix(gzipSuffix) { opaque = opaque.dropLast(gzipSuffix.utf8.count) }
            tags.append(String(opaque))
        }
        return .tags(tags)
    }
}
