/// The request methods the server knows.
///
/// `TRACE` and `CONNECT` are known but never routed: ``Router/add(_:_:_:)`` refuses them, so they are answered
/// `405` with the path's `Allow` (or `404` where no route matches), and their connection closes with the answer
/// (libevent reads no `TRACE` body, and keeps a `CONNECT`'s connection open for a tunnel). Methods libevent does
/// not know get `501`.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE, CONNECT

    /// Whether a route may be registered for the method (all but `TRACE` and `CONNECT`).
    public var isRoutable: Bool { self != .TRACE && self != .CONNECT }
}
