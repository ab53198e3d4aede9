public import ListDeltaStorage
public import Tracing
import Foundation

/// How a commit is traced: its store call as a client span, and the ``CommitTrace`` it carries to the watchers it
/// wakes (here, and through a shared store's announcement on other instances).
public enum CommitTracing {
    /// The commit's trace: the W3C `traceparent` of the span current on this thread or task (the write's), or none
    /// when nothing is traced, and the time now.
    /// - Complexity: O(1).
    public static func current(at milliseconds: Int64 = nowMilliseconds()) -> CommitTrace {
        CommitTrace(traceParent: Spans.isEnabled ? traceParent(of: ServiceContext.current) : nil, committedAtMilliseconds: milliseconds)
    }

    /// The `traceparent` the tracer writes for `context`, or `nil` (no context, nothing traced).
    public static func traceParent(of context: ServiceContext?) -> String? {
        guard let context, let tracer = Spans.tracer else { return nil }
        var carrier = TraceHeaders()
        tracer.inject(context, into: &carrier, using: TraceHeaders.Access())
        return carrier.traceParent
    }

    /// The context a `traceparent` stands for (to link to it), or `nil` when the bootstrapped instrument reads
    /// nothing from it.
    public static func context(ofTraceParent traceParent: String?) -> ServiceContext? {
        guard let traceParent, let tracer = Spans.tracer else { return nil }
        var context = ServiceContext.topLevel
        tracer.extract(
            TraceHeaders(traceParent: traceParent), into: &context, using: TraceHeaders.Access())
        return context.isEmpty ? nil : context
    }

    /// Milliseconds since 1970 on this instance's clock.
    public static func nowMilliseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }

    /// Runs `body` (a store call) in a client span named `listdelta.store.<operation>`, with the database's
    /// `db.system.name` and `db.operation.name`, and the list it concerns.
    public static func storeCall<T, Failure: Error>(
        _ operation: String, list: String, system: String, _ body: () throws(Failure) -> T
    ) throws(Failure) -> T {
        try Spans.with("listdelta.store.\(operation)", ofKind: .client) { (span) throws(Failure) -> T in
            if span.isRecording {
                span.attributes["db.system.name"] = system
                span.attributes["db.operation.name"] = operation
                span.attributes["listdelta.list.id"] = list
            }
            return try body()
        }
    }
}

/// The two W3C trace-context fields, and nothing else, as a carrier: whatever an instrument logs of a carrier it
/// cannot read holds no other header (a token).
public struct TraceHeaders: Sendable {
    public var traceParent: String?
    public var traceState: String?

    public init(traceParent: String? = nil, traceState: String? = nil) {
        self.traceParent = traceParent
        self.traceState = traceState
    }

    /// Reads and writes the two fields by their header names (any case).
    public struct Access: Extractor, Injector {
        public init() {}

        public func extract(key: String, from carrier: TraceHeaders) -> String? {
            switch key.lowercased() {
            case "traceparent": carrier.traceParent
            case "tracestate": carrier.traceState
            default: nil
            }
        }

        public func inject(_ value: String, forKey key: String, into carrier: inout TraceHeaders) {
            switch key.lowercased() {
            case "traceparent": carrier.traceParent = value
            case "tracestate": carrier.traceState = String(value.utf8.prefix(512)) ?? ""
            default: break
            }
        }
    }
}
