import Foundation

/// Atom's text constructs, 1.0's (`type="text|html|xhtml"`) and 0.3's (`type` a media type, `mode="xml|escaped|
/// base64"`), read either as a reader shows them (titles) or as the feed's markup (summaries and contents).
struct AtomText {
    /// What the construct's value is.
    enum Kind: Equatable {
        case text, html, xhtml
    }

    let kind: Kind
    /// The value: text, HTML markup or XHTML markup (serialized), base64 already decoded.
    let value: String?

    /// Reads `node`'s construct.
    ///
    /// `type` `html`/`text/html` is HTML, `xhtml`/`application/xhtml+xml` is XHTML, anything else (or none) text.
    /// `mode="escaped"` means HTML unless `type` says `text/plain`. `mode="base64"`, or no `mode` and a `type` that
    /// is a media type neither `text/…` nor XML (`application/octet-stream`: RFC 4287's rule for content, which
    /// feeds apply to titles too), is decoded first, as UTF-8 (kept as written when it does not decode). XHTML and
    /// inline `mode="xml"` HTML are the element's children serialized (inside the XHTML `div`, when there is one).
    /// - Complexity: O(*n*) in the size of the element.
    init(_ node: XMLNode) {
        let type = node.attributes["type"].flatMap(FeedText.trimmed)?.lowercased()
        let mode = node.attributes["mode"].flatMap(FeedText.trimmed)?.lowercased()
        var kind: Kind
        switch type {
        case "html", "text/html": kind = .html
        case "xhtml", "application/xhtml+xml": kind = .xhtml
        default: kind = .text
        }
        switch mode ?? (type.map(Self.isBinary) == true ? "base64" : nil) {
        case "escaped":
            if kind == .xhtml || (kind == .text && type != "text" && type != "text/plain") { kind = .html }
            value = FeedText.trimmed(node.textContent)
        case "base64":
            if kind == .xhtml { kind = .html }
            let decoded = Data(base64Encoded: node.textContent, options: .ignoreUnknownCharacters)
            value = decoded.flatMap { String(validating: $0, as: UTF8.self) }.flatMap(FeedText.trimmed) ?? node.trimmedText
        default:
            if kind == .xhtml || (kind == .html && !node.children.isEmpty) {
                let container = node.child("div", in: FeedNamespace.xhtml) ?? node
                value = FeedText.trimmed(container.innerMarkup)
                if kind == .html { kind = .xhtml }
            } else {
                value = node.trimmedText
            }
        }
        self.kind = kind
    }

    /// Whether a media type says the content is base64: one with a `/` that is not `text/…`, `…/xml` or `…+xml`.
    private static func isBinary(_ type: String) -> Bool {
        type.utf8.contains(UInt8(ascii: "/")) && !type.hasPrefix("text/") && !type.hasSuffix("/xml") && !type.hasSuffix("+xml")
    }

    /// The value as a reader shows it: markup as text (tags removed, references decoded), text as is.
    var plain: String? {
        guard let value else { return nil }
        return kind == .text ? value : HTMLText.text(value)
    }
}
