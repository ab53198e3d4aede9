public import HTTPServer
public import Logging

/// ListDelta's HTTP server on 127.0.0.1 and a port of its own, serving `router`: the live tests of the HTTP layer
/// and the stand-in servers other tests talk to (a feed server). Stopped when released.
public final class LoopbackServer: Sendable {
    public let server: HTTPServer

    /// Starts serving.
    /// - Parameters:
    ///   - configure: Changes to the server's configuration (port 0 and a 2 s shutdown grace by default).
    ///   - logger: Where the server logs (nowhere by default).
    public init(
        router: Router, logger: Logger = Logger(label: "loopback") { _ in SwiftLogNoOpLogHandler() },
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.shutdownGraceSeconds = 2
        configure(&configuration)
        server = HTTPServer(configuration: configuration, router: router, logger: logger)
        try server.start()
    }

    /// The bound port.
    public var port: Int { server.port }

    /// `http://127.0.0.1:<port>`.
    public var base: String { "http://127.0.0.1:\(port)" }

    /// Stops serving and waits until the server stopped.
    public func stop() {
        server.shutdown()
        server.waitUntilStopped()
    }

    deinit { stop() }
}

/// Starts a server on 127.0.0.1:0 with `router`, runs `body`, then stops it.
public func withServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    capture: LogCapture = LogCapture(),
    router: Router,
    _ body: (HTTPServer) throws -> Void
) throws {
    let loopback = try LoopbackServer(router: router, logger: capture.logger(), configure)
    defer { loopback.stop() }
    try body(loopback.server)
}
