/// The security fields of every answer (docs/api.md, Transport): the API's and the page's.
public enum SecurityHeaders {
    /// What the API's answers say to a browser: never framed (a JSON answer renders as text, and `nosniff` keeps it
    /// so; a developer may still run scripts on a tab at an API URL, as the tests do).
    static let apiPolicy = "frame-ancestors 'none'"

    /// What the live page needs and no more: its own scripts, style and API, no inline script or style
    /// attribute, no plugin, and no framing (it holds write buttons and a token).
    static let pagePolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The fields every answer carries unless it sets its own (the page sets ``pagePolicy``): the API's policy,
    /// `nosniff` (a body is read as its `Content-Type` says, never sniffed into HTML or script), and no
    /// `Referer` (a page's URL may carry an `access_token`).
    public static let defaults: [(name: String, value: String)] = [
        ("Content-Security-Policy", apiPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
    ]
}
