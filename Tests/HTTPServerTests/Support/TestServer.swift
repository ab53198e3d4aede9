import HTTPServer
import Logging
import Synchronization

/// Collects log messages for assertions.
final class LogCapture: Sendable {
    let lines = Mutex<[String]>([])
    func contains(_ text: String) -> Bool { lines.withLock { $0.contains { $0.contains(text) } } }
}

struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        capture.lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
}

/// Starts a server on 127.0.0.1:0, runs `body`, then shuts it down.
func withServer(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    capture: LogCapture = LogCapture(),
    router: Router,
    _ body: (HTTPServer) throws -> Void
) throws {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.shutdownGraceSeconds = 2
    configure(&configuration)
    let logger = Logger(label: "test") { _ in CapturingHandler(capture: capture) }
    let server = HTTPServer(configuration: configuration, router: router, logger: logger)
    try server.start()
    defer {
        server.shutdown()
        server.waitUntilStopped()
    }
    try body(server)
}

/// Sleeps on the calling thread.
func sleepMilliseconds(_ ms: Int) { usleepShim(UInt32(ms * 1000)) }

/// Polls `condition` for up to `seconds`.
func eventually(_ seconds: Double = 3, _ condition: () -> Bool) -> Bool {
    var waited = 0.0
    while waited < seconds {
        if condition() { return true }
        sleepMilliseconds(10)
        waited += 0.01
    }
    return condition()
}
