import HTTPServer
import ListDeltaCore
import Metrics
import Prometheus

/// `/healthz`, `/metrics`.
struct OperationalRoutes {
    let context: ServiceContext
    let registry: PrometheusCollectorRegistry?

    func register(in router: inout Router) {
        let context = self.context
        let registry = self.registry
        router.add(.GET, "/healthz") { _, responder in
            responder.respond(Responses.json(200, ["status": "ok"], headers: ["Cache-Control": "no-store"]))
        }
        router.add(.GET, "/metrics") { _, responder in
            let watchers = context.hub.counts
            Gauge(label: "listdelta_parked_polls").record(watchers.polls)
            Gauge(label: "listdelta_event_streams").record(watchers.streams)
            Gauge(label: "listdelta_cached_bodies_bytes").record(context.documentBodies.usage.cost + context.diffBodies.usage.cost)
            var text: [UInt8] = []
            registry?.emit(into: &text)
            if text.isEmpty { text = Array("# metrics are not enabled in this process\n".utf8) }
            responder.respond(HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
                body: .bytes(text)))
        }
    }
}
