import Foundation

/// The URLs of one list on a server: its document, its long-polled diff and its event stream.
struct ListEndpoints: Sendable {
    let list: URL
    /// The server's root without a trailing slash: the paths the server names (`Link` targets) are under it.
    let root: String

    /// `baseURL` is the server's root (`http://host:8080`, or a prefix a proxy serves it under).
    init(baseURL: URL, listID: String) {
        let root = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        let id = listID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? listID
        list = URL(string: "\(root)/v1/lists/\(id)") ?? baseURL
        self.root = root
    }

    /// The URL of a `next` link the server sent: a path and query (`/v1/lists/a/diff?from=8&wait=25&cursor=9`)
    /// under the root, so that a prefix a proxy serves the service under is kept; any other reference resolved
    /// against the list's URL. `nil` when it does not parse.
    func next(_ target: String) -> URL? {
        if target.hasPrefix("/"), !target.hasPrefix("//") { return URL(string: root + target) }
        return URL(string: target, relativeTo: list)?.absoluteURL
    }

    /// `GET /v1/lists/{id}[?q=Q]`.
    func document(query: String?) -> URL {
        URL(string: list.absoluteString + (query.map { "?q=" + Self.encoded($0) } ?? "")) ?? list
    }

    /// `GET /v1/lists/{id}/diff?from=R[&q=Q]&wait=S`.
    func diff(from revision: Int, query: String?, wait: Int) -> URL {
        URL(string: "\(list.absoluteString)/diff?from=\(revision)\(Self.parameter("q", query))&wait=\(wait)") ?? list
    }

    /// `GET /v1/lists/{id}/diff?from=R[&fromQuery=P][&q=Q]`: the diff that changes the query followed (answered at
    /// once).
    func diff(from revision: Int, fromQuery: String?, query: String?) -> URL {
        URL(string: "\(list.absoluteString)/diff?from=\(revision)\(Self.parameter("fromQuery", fromQuery))\(Self.parameter("q", query))") ?? list
    }

    /// `GET /v1/lists/{id}/events?from=R[&q=Q]`.
    func events(from revision: Int, query: String?) -> URL {
        URL(string: "\(list.absoluteString)/events?from=\(revision)\(Self.parameter("q", query))") ?? list
    }

    /// `&name=value` percent-encoded, or nothing for `nil`.
    private static func parameter(_ name: String, _ value: String?) -> String {
        value.map { "&\(name)=" + encoded($0) } ?? ""
    }

    /// `text` percent-encoded as JavaScript's `encodeURIComponent` does (the server's canonical `q` is too).
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: uriComponent) ?? text
    }

    private static let uriComponent = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")
}
