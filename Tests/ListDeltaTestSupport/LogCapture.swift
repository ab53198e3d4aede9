public import Logging
public import Synchronization

/// Collects log messages for assertions.
public final class LogCapture: Sendable {
    public let lines = Mutex<[String]>([])

    public init() {}

    /// Whether a line containing `text` was logged.
    public func contains(_ text: String) -> Bool { lines.withLock { $0.contains { $0.contains(text) } } }

    /// A logger whose lines (level and message) go here.
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in CapturingHandler(capture: self) }
    }
}

/// A log handler that records into a ``LogCapture``.
public struct CapturingHandler: LogHandler {
    let capture: LogCapture
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    public init(capture: LogCapture) {
        self.capture = capture
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        capture.lines.withLock { $0.append("\(event.level) \(event.message)") }
    }
}
