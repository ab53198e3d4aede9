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

    /// `GET /v1/lists/{id}`.
    var document: URL { list }

    /// `GET /v1/lists/{id}/diff?from=R&wait=S`.
    func diff(from revision: Int, wait: Int) -> URL {
        URL(string: "\(list.absoluteString)/diff?from=\(revision)&wait=\(wait)") ?? list
    }

    /// `GET /v1/lists/{id}/events?from=R`.
    func events(from revision: Int) -> URL {
        URL(string: "\(list.absoluteString)/events?from=\(revision)") ?? list
    }
}
