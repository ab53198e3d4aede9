import HTTPServer
import TextFormats

/// Where anonymous writes (no credential configured) may come from (docs/access.md, Write safety): never from a
/// page of another origin, which any web site could make a browser send to a developer's instance; and, on an
/// instance bound to loopback, only to a loopback name, so that a DNS name rebound to 127.0.0.1 reaches nothing.
/// Same-origin pages and clients that send no `Origin` (curl, apps) are unaffected. Pure: decided from the
/// request's `Host` and `Origin`.
struct AnonymousWriteGuard: Sendable {
    /// Whether the `Host` must be a loopback name (the instance is bound to loopback).
    let requiresLoopbackHost: Bool

    /// Checks an anonymous write.
    /// - Throws: ``ServiceError/misdirected(_:)`` (421) for a `Host` that is not a loopback name where one is
    ///   required, ``ServiceError/forbidden(_:)`` (403) for an `Origin` other than the request's own.
    func check(_ request: HTTPRequest) throws(ServiceError) {
        let host = request.headers["Host"].map { String($0.trimmingSpaces()) }
        if requiresLoopbackHost, let host, !Self.isLoopbackName(Self.hostName(ofAuthority: host)) {
            throw .misdirected(
                "this instance takes anonymous writes for loopback names only (localhost, 127.0.0.1, [::1]), not \"\(host)\"; configure a write token to serve other names")
        }
        guard let origin = request.headers["Origin"] else { return }
        guard let host, Self.origin(origin, isSameAs: host) else {
            throw .forbidden(
                "anonymous writes are refused from another origin (\(origin)): configure a write token (writeTokens, jwtSecret) to take writes from other pages")
        }
    }

    /// Whether `origin` (`scheme://host[:port]`) names the authority `host` (`Host`): the same host name and, when
    /// `Host` carries a port, the same port (the scheme's default when the origin has none).
    static func origin(_ origin: String, isSameAs host: String) -> Bool {
        let parts = origin.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, ["http", "https"].contains(parts[0].lowercased()) else { return false }
        let authority = String(parts[1])
        guard hostName(ofAuthority: authority).lowercased() == hostName(ofAuthority: host).lowercased() else { return false }
        guard let hostPort = port(ofAuthority: host) else { return true }
        return (port(ofAuthority: authority) ?? (parts[0].lowercased() == "https" ? "443" : "80")) == hostPort
    }

    /// The host name of an authority (`name[:port]`, `[v6]:port`), without brackets or port.
    static func hostName(ofAuthority authority: String) -> String {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return authority }
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        guard let colon = authority.lastIndex(of: ":") else { return authority }
        return String(authority[..<colon])
    }

    /// The port of an authority, if it has one.
    static func port(ofAuthority authority: String) -> String? {
        let afterHost = authority.hasPrefix("[") ? authority.firstIndex(of: "]").map { authority[$0...] } ?? "" : authority[...]
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        let port = afterHost[afterHost.index(after: colon)...]
        return port.isEmpty ? nil : String(port)
    }

    /// `localhost` (and names under it), `127.x.x.x` and `::1`.
    static func isLoopbackName(_ name: String) -> Bool {
        let name = name.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
