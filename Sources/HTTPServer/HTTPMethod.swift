/// The request methods the server routes.
///
/// Other methods known to libevent (`TRACE`, `CONNECT`) are answered `501` with a problem body.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS
}
