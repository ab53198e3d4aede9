import Synchronization
public import Tracing

/// Synchronous spans for work that runs on threads of its own (the worker pools, the event loops): the span is the
/// current context for the whole of `body`, so what `body` calls (and the jobs it hands to a pool) nests under it.
///
/// Off until ``enable(tracer:rootRatio:)`` (the composition root calls it when it bootstraps an exporting tracer):
/// until then `body` gets a no-op span and nothing else happens, so an untraced service pays one atomic load per
/// span.
///
/// A span with no parent (a source's fetch cycle, a view's update that no write of this instance asked for) is
/// started for `rootRatio` of them only, decided here, before the tracer is asked: a trace not kept costs nothing.
public enum Spans {
    /// The tracer, read once from the instrumentation system (whose getter takes a lock and casts), and the share
    /// of root spans kept.
    private final class Setup: Sendable {
        let tracer: any Tracer
        let rootRatio: Double

        init(tracer: any Tracer, rootRatio: Double) {
            self.tracer = tracer
            self.rootRatio = rootRatio
        }
    }

    private static let setup = Atomic<Unmanaged<Setup>?>(nil)
    private static let noOp: any Span = NoOpTracer.NoOpSpan(context: .topLevel)

    /// Whether spans are started at all.
    public static var isEnabled: Bool { setup.load(ordering: .relaxed) != nil }

    /// The tracer spans are started with, once enabled.
    public static var tracer: (any Tracer)? { setup.load(ordering: .acquiring)?.takeUnretainedValue().tracer }

    /// Starts spans from now on with `tracer` (the bootstrapped one), keeping `rootRatio` (0...1) of root spans.
    /// Call once, before serving.
    public static func enable(tracer: any Tracer, rootRatio: Double) {
        let new = Unmanaged.passRetained(Setup(tracer: tracer, rootRatio: rootRatio))
        setup.store(new, ordering: .releasing)
    }

    /// Runs `body` in a span named `name`, current while it runs, ended when it returns or throws (a thrown error is
    /// recorded and marks the span failed).
    ///
    /// With no tracer bootstrapped this costs a no-op span and one task-local binding.
    public static func with<T, Failure: Error>(
        _ name: @autoclosure () -> String, ofKind kind: SpanKind = .internal, context: ServiceContext? = nil,
        _ body: (any Span) throws(Failure) -> T
    ) throws(Failure) -> T {
        guard let setup = setup.load(ordering: .acquiring)?.takeUnretainedValue() else { return try body(noOp) }
        let parent = context ?? ServiceContext.current
        if parent == nil, setup.rootRatio < 1, Double.random(in: 0..<1) >= setup.rootRatio { return try body(noOp) }
        let span = setup.tracer.startSpan(name(), context: parent ?? .topLevel, ofKind: kind)
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
        guard let tracer, let context = ServiceContext.current, let span = tracer.activeSpan(identifiedBy: context),
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
