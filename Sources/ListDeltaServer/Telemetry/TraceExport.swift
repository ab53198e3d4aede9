import Foundation
import ListDeltaEngine
public import Logging
import Metrics
import OTel
import ServiceLifecycle
import Tracing

/// The export of spans over OTLP/HTTP (swift-otel), bootstrapped as the process's tracer when
/// ``TracingSettings/isExporting``.
///
/// Spans wait in swift-otel's batch processor, whose queue is bounded (`OTEL_BSP_MAX_QUEUE_SIZE`, 2,048 by
/// default): when the collector is down or slow, the spans that do not fit are dropped, never waited for, so a
/// request costs the same. What happens to them is counted (``ExportDiagnostics``).
public final class TraceExport: Sendable {
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    private init(group: ServiceGroup) {
        self.group = group
        running = Task.detached { try? await group.run() }
    }

    /// Bootstraps the tracer and starts exporting, or returns `nil` when export is off. Call once per process,
    /// before serving.
    /// - Throws: `ConfigurationError` when swift-otel refuses the settings.
    public static func start(_ settings: TracingSettings, logger: Logger) throws(ConfigurationError) -> TraceExport? {
        ExportDiagnostics.registerCounters()
        guard settings.isExporting else { return nil }
        // swift-otel reads the process environment over any configuration it is given: it gets the settings as
        // resolved (file, variables, flags), so that a flag wins over a variable there too; and the sampler that
        // keeps what the draw of `rootRatio` let through (see `TracingSettings.exporterSampler`).
        export(settings)
        var configuration = OTel.Configuration.default
        configuration.traces.enabled = true
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.propagators = [.traceContext]
        configuration.diagnosticLogLevel = .debug
        configuration.diagnosticLogger = .custom(Logger(label: "listdelta.otel") { _ in ExportDiagnostics(forwardingTo: logger) })
        do {
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(backend.factory)
            Spans.enable(tracer: InstrumentationSystem.tracer, rootRatio: settings.rootRatio)
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: backend.service)], logger: logger))
            logger.info("exporting spans", metadata: ["endpoint": "\(settings.tracesURL)", "sampler": "\(settings.sampler)"])
            return TraceExport(group: group)
        } catch {
            throw ConfigurationError("the trace export cannot start: \(error)")
        }
    }

    /// Exports what is queued (within swift-otel's export timeout), then stops.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        await running.value
    }

    private static func export(_ settings: TracingSettings) {
        func set(_ name: String, _ value: String) {
            if value.isEmpty { unsetenv(name) } else { setenv(name, value, 1) }
        }
        set("OTEL_SDK_DISABLED", "false")
        set("OTEL_TRACES_EXPORTER", "otlp")
        set("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/protobuf")
        set("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
        set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", settings.tracesURL)
        set("OTEL_EXPORTER_OTLP_HEADERS", settings.exportHeaders)
        set("OTEL_EXPORTER_OTLP_TRACES_HEADERS", settings.exportHeaders)
        set("OTEL_SERVICE_NAME", settings.serviceName)
        set("OTEL_RESOURCE_ATTRIBUTES", settings.resourceAttributes)
        set("OTEL_TRACES_SAMPLER", settings.exporterSampler)
        set("OTEL_TRACES_SAMPLER_ARG", "")
    }
}
