import Foundation

/// The URLs of one list on a server: its document, its long-polled diff and its event stream.
struct ListEndpoints: Sendable {
    let list: URL

    /// `baseURL` is the server's root (`http://host:8080`, or a prefix a proxy serves it under).
    init(baseURL: URL, listID: String) {
        let root = baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        let id = listID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", "?", "#"])) ?? listID
        list = URL(string: "\(root)/v1/lists/\(id)") ?? baseURL
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
