import Logging
import Metrics

/// swift-otel's diagnostic log, read for what it says of the export: batches sent, spans dropped because the
/// queue was full, batches that failed (their spans are lost too). Each becomes a counter in `/metrics`; only
/// warnings and errors are passed on to the service's log, by their message and error alone (swift-otel's
/// metadata may hold the exporter's headers).
struct ExportDiagnostics: LogHandler {
    private let forward: Logger
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    init(forwardingTo logger: Logger) { forward = logger }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static let exported = Counter(label: "listdelta_trace_spans_exported_total")
    static let dropped = Counter(label: "listdelta_trace_spans_dropped_total")
    static let failures = Counter(label: "listdelta_trace_export_failures_total")

    /// Makes the counters appear in `/metrics` at 0, before anything is exported.
    static func registerCounters() {
        for counter in [exported, dropped, failures] { counter.increment(by: 0) }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let text = event.message.description
        if text.hasPrefix("Exported batch") {
            Self.exported.increment(by: Self.count(all["batch_size"]))
        } else if text.hasPrefix("Spans were dropped") {
            Self.dropped.increment(by: Self.count(all["dropped_count"]))
        } else if text.hasPrefix("Failed to export batch") {
            Self.failures.increment()
            Self.dropped.increment(by: Self.count(all["batch_size"]))
        }
        guard event.level >= .warning else { return }
        var kept: Logger.Metadata = [:]
        for key in ["dropped_count", "batch_size", "queue_size"] { kept[key] = all[key] }
        if let error = event.error { kept["error"] = "\(error)" }
        forward.log(level: event.level, "trace export: \(text)", metadata: kept)
    }

    private static func count(_ value: Logger.Metadata.Value?) -> Int {
        guard case .string(let text) = value else { return 0 }
        return Int(text) ?? 0
    }
}
