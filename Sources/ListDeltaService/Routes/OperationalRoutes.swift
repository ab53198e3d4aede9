import HTTPServer
import ListDeltaApplication
import ListDeltaCore
import ListDeltaEngine
import ListDeltaStorage
import Metrics
import Prometheus

/// `/healthz`, `/metrics`.
struct OperationalRoutes {
    let context: RouteContext
    let registry: PrometheusCollectorRegistry?

    func register(in router: inout Router) {
        let context = self.context
        let registry = self.registry
        router.add(.GET, "/healthz") { _, responder in
            // Answered on the loop from what the store's last calls and its listening connection found. Readiness
            // and liveness at once: 503 while the instance drains before a stop or cannot reach its database; the
            // latter passes by itself, without a restart.
            let reason: String? =
                if context.app.isDraining {
                    "this instance is draining before it stops; send new requests to another"
                } else if let store = context.app.sharedStore, !store.isReachable {
                    "the database cannot be reached; this instance recovers by itself when it can"
                } else {
                    nil
                }
            var response = reason.map { Responses.problem(.unavailable($0)) } ?? Responses.json(200, ["status": "ok"])
            response.headers["Cache-Control"] = "no-store"
            responder.respond(response)
        }
        router.add(.GET, "/metrics") { _, responder in
            // Rendering every series and compressing them is worker work.
            context.perform(responder) { () throws(ServiceError) in Self.metrics(context.app, registry) }
        }
    }

    private static func metrics(_ app: Application, _ registry: PrometheusCollectorRegistry?) -> HTTPResponse {
        let sources = app.sources!
        let watchers = app.hub.counts
        Gauge(label: "listdelta_parked_polls").record(watchers.polls)
        Gauge(label: "listdelta_event_streams").record(watchers.streams)
        Gauge(label: "listdelta_watched_lists").record(watchers.lists)
        Gauge(label: "listdelta_cached_bodies_bytes").record(app.bodies.usageBytes)
        let cache = app.repository.cacheUsage
        Gauge(label: "listdelta_cached_list_heads").record(cache.heads)
        if let store = app.sharedStore { Gauge(label: "listdelta_database_reachable").record(store.isReachable ? 1 : 0) }
        if let counts = sources.counts() {
            Gauge(label: "listdelta_sources").record(counts.attached)
            Gauge(label: "listdelta_sources_failing").record(counts.failing)
        }
        Gauge(label: "listdelta_cached_documents_bytes").record(cache.documentBytes)
        for pool in app.pools.all + [sources.pool] {
            let usage = pool.usage
            Gauge(label: "listdelta_work_queued", dimensions: [("pool", pool.name)]).record(usage.queued)
            Gauge(label: "listdelta_work_running", dimensions: [("pool", pool.name)]).record(usage.running)
        }
        var text: [UInt8] = []
        registry?.emit(into: &text)
        if text.isEmpty { text = Array("# metrics are not enabled in this process\n".utf8) }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Cache-Control": "no-store"],
            body: .bytes(text))
    }
}
