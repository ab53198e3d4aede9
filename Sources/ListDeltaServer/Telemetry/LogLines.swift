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
        let (level, message) = (event.level, event.message)
        var writer = JSONTextWriter()
        writer.beginObject()
        writer.key("time")
        writer.string(RFC3339.format(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
        writer.key("level")
        writer.string(level.rawValue)
        writer.key("label")
        writer.string(label)
        writer.key("message")
        writer.string(message.description)
        for key in all.keys.sorted() where !["time", "level", "label", "message"].contains(key) {
            writer.key(key)
            writer.string("\(all[key]!)")
        }
        writer.endObject()
        var text = writer.bytes
        text.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(Data(text))
    }
}
