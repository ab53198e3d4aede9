import Synchronization
public import Tracing

/// Synchronous spans for work that runs on threads of its own (the worker pools, the event loops): the span is the
/// current context for the whole of `body`, so what `body` calls (and the jobs it hands to a pool) nests under it.
///
/// Off until ``enable()`` (the composition root calls it when it bootstraps an exporting tracer): then `body` gets
/// a no-op span and nothing else happens, so an untraced service pays one relaxed load per span.
public enum Spans {
    private static let enabled = Atomic<Bool>(false)
    private static let noOp: any Span = NoOpTracer.NoOpSpan(context: .topLevel)

    /// Whether spans are started at all.
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Starts spans from now on, through the bootstrapped tracer. Call once, after bootstrapping it.
    public static func enable() { enabled.store(true, ordering: .relaxed) }

    /// Runs `body` in a span named `name`, current while it runs, ended when it returns or throws (a thrown error is
    /// recorded and marks the span failed).
    ///
    /// With no tracer bootstrapped this costs a no-op span and one task-local binding.
    public static func with<T, Failure: Error>(
        _ name: String, ofKind kind: SpanKind = .internal, context: ServiceContext? = nil,
        _ body: (any Span) throws(Failure) -> T
    ) throws(Failure) -> T {
        guard isEnabled else { return try body(noOp) }
        let parent = context ?? ServiceContext.current ?? .topLevel
        let span = startSpan(name, context: parent, ofKind: kind)
        defer { span.end() }
        let result: Result<T, Failure> = ServiceContext.$current.withValue(span.context) {
            do throws(Failure) {
                return .success(try body(span))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let value):
            return value
        case .failure(let error):
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// The span current on this thread or task, when one is recording (to add an attribute to it).
    public static var current: (any Span)? {
        guard isEnabled, let context = ServiceContext.current, let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: context),
            span.isRecording
        else { return nil }
        return span
    }

    /// Milliseconds from `start` to now, for a wait's attribute.
    public static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }
}
