import Foundation

/// The trace export settings, read from the standard `OTEL_*` variables (and the file's `otel*` keys, and flags).
///
/// Export is on exactly when an endpoint is set (``endpoint`` or ``tracesEndpoint``) and ``disabled`` is not.
public struct TracingSettings: Sendable, Equatable {
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: a base URL that `/v1/traces` is appended to. Empty: none.
    public var endpoint = ""
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`: the traces URL, used as it is; wins over ``endpoint``.
    public var tracesEndpoint = ""
    /// `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs, comma-separated, sent with every export (an API key);
    /// never logged.
    public var headers = ""
    /// `OTEL_EXPORTER_OTLP_TRACES_HEADERS`: the same for traces alone; wins over ``headers``.
    public var tracesHeaders = ""
    /// `OTEL_SERVICE_NAME`. The default is `listdelta`.
    public var serviceName = "listdelta"
    /// `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs, comma-separated.
    public var resourceAttributes = ""
    /// `OTEL_TRACES_SAMPLER`: `always_on`, `always_off`, `traceidratio`, `parentbased_always_on`,
    /// `parentbased_always_off` or `parentbased_traceidratio`. The default is `parentbased_always_on`.
    public var sampler = "parentbased_always_on"
    /// `OTEL_TRACES_SAMPLER_ARG`: the ratio of the `traceidratio` samplers, 0...1.
    public var samplerArgument = ""
    /// `OTEL_SDK_DISABLED=true` turns export off whatever else is set.
    public var disabled = false

    public init() {}

    static let samplers = [
        "always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio",
    ]

    /// Whether spans are recorded and exported.
    public var isExporting: Bool { !disabled && !tracesURL.isEmpty }

    /// The share (0...1) of traces started here (a request without a `traceparent`, or any request for a sampler
    /// that is not parent-based; a source's fetch cycle) that are kept: decided before a span is started, so the
    /// others cost nothing (``TraceExport`` gives swift-otel a sampler that keeps what reaches it).
    public var rootRatio: Double {
        switch sampler {
        case "always_off", "parentbased_always_off": 0
        case "traceidratio", "parentbased_traceidratio": Double(samplerArgument).map { min(max($0, 0), 1) } ?? 1
        default: 1
        }
    }

    /// Whether a request's `traceparent` decides (the `parentbased_` samplers).
    public var followsParent: Bool { sampler.hasPrefix("parentbased_") }

    /// The sampler swift-otel runs behind the draw of ``rootRatio``: it keeps every span that reaches it, but a
    /// child of a remote parent that was not sampled when the sampler is parent-based.
    var exporterSampler: String {
        if followsParent { return "parentbased_always_on" }
        return rootRatio > 0 ? "always_on" : "always_off"
    }

    /// The headers sent with each export: ``tracesHeaders`` when set, else ``headers``.
    public var exportHeaders: String { tracesHeaders.isEmpty ? headers : tracesHeaders }

    /// Where spans go: ``tracesEndpoint`` as it is, else ``endpoint`` with `/v1/traces` appended; empty for none.
    public var tracesURL: String {
        if !tracesEndpoint.isEmpty { return tracesEndpoint }
        guard !endpoint.isEmpty else { return "" }
        return endpoint.hasSuffix("/") ? endpoint + "v1/traces" : endpoint + "/v1/traces"
    }

    /// - Throws: `ConfigurationError` for an endpoint that is not an http(s) URL, an unknown sampler or a ratio
    ///   outside 0...1.
    func validate() throws(ConfigurationError) {
        for url in [endpoint, tracesEndpoint] where !url.isEmpty {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw ConfigurationError("the OTLP endpoint must be an http or https URL")
            }
        }
        guard Self.samplers.contains(sampler) else {
            throw ConfigurationError("OTEL_TRACES_SAMPLER must be one of \(Self.samplers.joined(separator: ", "))")
        }
        if !samplerArgument.isEmpty {
            guard let ratio = Double(samplerArgument), (0...1).contains(ratio) else {
                throw ConfigurationError("OTEL_TRACES_SAMPLER_ARG must be a ratio in 0...1")
            }
        }
        guard !serviceName.isEmpty else { throw ConfigurationError("OTEL_SERVICE_NAME must not be empty") }
    }
}
