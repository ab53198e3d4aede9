public import Tracing

/// Synchronous spans for work that runs on threads of its own (the worker pools, the event loops): the span is the
/// current context for the whole of `body`, so what `body` calls (and the jobs it hands to a pool) nests under it.
public enum Spans {
    /// Runs `body` in a span named `name`, current while it runs, ended when it returns or throws (a thrown error is
    /// recorded and marks the span failed).
    ///
    /// With no tracer bootstrapped this costs a no-op span and one task-local binding.
    public static func with<T, Failure: Error>(
        _ name: String, ofKind kind: SpanKind = .internal, context: ServiceContext? = nil,
        _ body: (any Span) throws(Failure) -> T
    ) throws(Failure) -> T {
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
        guard let context = ServiceContext.current, let span = InstrumentationSystem.tracer.activeSpan(identifiedBy: context),
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
