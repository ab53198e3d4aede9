import Foundation
public import ListDeltaStorage

/// Where the PostgreSQL store connects and how it behaves, read from a `postgres://` URL.
public struct PostgresStoreConfiguration: Sendable, Equatable {
    /// Whether to encrypt the connection: the URL's `sslmode` (`disable`, `prefer`, `require`).
    public enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// How many revisions are served per list (as the SQLite store's `retention`).
    public var retention = 1000
    /// The most connections the store opens: half of them (at least one) for appends (``AppendConnections``), the
    /// rest (at least one) for the pool; the listening connection comes on top.
    public var maximumConnections = 10
    /// The longest a store call waits for the database (for a connection, then for its answer); past it the call
    /// fails with ``StoreError/unavailable(_:)``.
    public var timeoutSeconds = 5.0

    /// Reads `postgres://user:password@host:port/database?sslmode=...` (also `postgresql://`); the user and the
    /// password are percent-decoded. `password` replaces the URL's when given (so it need not sit in a file).
    /// - Throws: ``StoreError/invalidWrite(_:)`` naming what is wrong, never the password.
    public init(url text: String, password: String? = nil) throws(StoreError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme.lowercased())
        else { throw .invalidWrite("the database URL must look like postgres://user:password@host:port/database") }
        guard let host = components.host, !host.isEmpty else { throw .invalidWrite("the database URL names no host") }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw .invalidWrite("the database URL names no user")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw .invalidWrite("the database URL names no database (its path)") }
        self.host = host
        self.port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw .invalidWrite("the database URL's port must be 1...65535") }
        self.username = user
        self.password = password ?? components.password?.removingPercentEncoding
        self.database = database.removingPercentEncoding ?? database
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else { throw .invalidWrite("sslmode must be disable, prefer or require") }
        self.tls = tls
    }

    /// The URL without its password, for logs.
    public var redacted: String { "postgres://\(username)@\(host):\(port)/\(database)" }
}
