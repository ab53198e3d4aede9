import ListDeltaCore
import ListDeltaStorage
import Metrics
import Tracing

extension ChangeHub {
    /// One event told to the watchers of one list: each watcher is told in a `listdelta.deliver` span under the
    /// context it registered in (its poll's or its stream's request), linked to the span of the write that made the
    /// revision (here or on another instance), and the time from the commit to the delivery is recorded in
    /// `listdelta_delivery_lag_seconds`, labelled `local` or `cross-instance`.
    struct Delivery {
        let list: String
        let event: ListEvent
        private let trace: CommitTrace?
        /// The writer's span, read once for every watcher.
        private let writer: ServiceContext?

        private static let localLag = Metrics.Timer(label: "listdelta_delivery_lag_seconds", dimensions: [("origin", "local")])
        private static let remoteLag = Metrics.Timer(label: "listdelta_delivery_lag_seconds", dimensions: [("origin", "cross-instance")])

        init(list: String, event: ListEvent) {
            self.list = list
            self.event = event
            self.trace = event.trace
            self.writer = CommitTracing.context(ofTraceParent: event.trace?.traceParent)
        }

        /// Tells `watch`, traced when it registered in a traced context.
        /// - Complexity: O(1) besides what the watcher does.
        func deliver(to watch: ChangeHub.Watch) {
            let lag = trace.map { max(0, CommitTracing.nowMilliseconds() - $0.committedAtMilliseconds) }
            if let trace, let lag { (trace.isFromAnotherInstance ? Self.remoteLag : Self.localLag).recordMilliseconds(lag) }
            guard let context = watch.context else {
                watch.watcher(list, event)
                return
            }
            Spans.with("listdelta.deliver", context: context) { span in
                if span.isRecording { describe(span, lag: lag) }
                watch.watcher(list, event)
            }
        }

        private func describe(_ span: any Span, lag: Int64?) {
            span.attributes["listdelta.list.id"] = list
            switch event {
            case .revision(let outcome, _): span.attributes["listdelta.revision"] = outcome.document.revision
            case .committedElsewhere(let revision, _): span.attributes["listdelta.revision"] = revision
            case .deleted: span.attributes["listdelta.event"] = "deleted"
            case .shutdown: span.attributes["listdelta.event"] = "shutdown"
            }
            guard let trace, let lag else { return }
            span.attributes["listdelta.delivery"] = trace.isFromAnotherInstance ? "cross-instance" : "local"
            span.attributes["listdelta.delivery.lag_ms"] = lag
            if let writer { span.addLink(SpanLink(context: writer, attributes: [:])) }
        }
    }
}
