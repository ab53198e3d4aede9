import Foundation
public import Logging
import OTel
import TextFormats

/// How the process writes its log: readable lines, or JSON lines that carry the active span's `trace_id` and
/// `span_id` (so a log line and a trace find each other).
public enum LogLines {
    /// Bootstraps the logging system for `format` (`text` or `json`) at `level`. Call once per process.
    public static func bootstrap(format: String, level: Logger.Level) {
        let spans = OTel.makeLoggingMetadataProvider()
        LoggingSystem.bootstrap({ label, provider in
            if format == "json" { return JSONLogHandler(label: label, level: level, provider: provider) }
            var handler = StreamLogHandler.standardError(label: label, metadataProvider: provider)
            handler.logLevel = level
            return handler
        }, metadataProvider: spans)
    }
}

/// One JSON object per line on standard error: `time`, `level`, `label`, `message`, then the metadata (the
/// provider's, with `trace_id` and `span_id` while a span is active, and the line's own).
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level, provider: Logger.MetadataProvider?) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = provider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error { all["error"] = "\(error)" }
        let line = Self.line(
            milliseconds: Int64(Date().timeIntervalSince1970 * 1000), level: event.level, label: label, message: event.message.description,
            metadata: all)
        FileHandle.standardError.write(Data(line))
    }

    /// One log line: a JSON object (the four fixed members first, then the metadata by key, every value a
    /// string) and a newline.
    static func line(milliseconds: Int64, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
        var writer = JSONTextWriter()
        writer.beginObject()
        for (key, value) in [("time", RFC3339.format(milliseconds: milliseconds)), ("level", level.rawValue), ("label", label), ("message", message)] {
            writer.key(key)
            writer.string(value)
        }
        for key in metadata.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            writer.key(key)
            writer.string("\(metadata[key]!)")
        }
        writer.endObject()
        return writer.bytes + [UInt8(ascii: "\n")]
    }
}
