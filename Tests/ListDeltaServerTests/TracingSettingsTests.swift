import Foundation
import HTTPServer
import Logging
@testable import ListDeltaServer
import Testing

/// docs/configuration.md and docs/operations.md: where spans go, when they are exported at all, how the standard
/// `OTEL_*` variables, the file and the flags combine, and the JSON log line.
@Suite struct TracingSettingsTests {
    @Test func exportIsOffUnlessAnEndpointIsSetAndTheSDKIsNotDisabled() throws {
        #expect(try loadConfiguration().tracing.isExporting == false)
        let on = try loadConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"])
        #expect(on.tracing.isExporting)
        #expect(on.httpServerConfiguration.tracesRequests)
        let disabled = try loadConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "TRUE"])
        #expect(disabled.tracing.isExporting == false)
        #expect(disabled.httpServerConfiguration.tracesRequests == false)
    }

    @Test func theBaseEndpointGetsV1TracesAndTheTracesEndpointIsUsedAsItIs() throws {
        #expect(try loadConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]).tracing.tracesURL == "http://c:4318/v1/traces")
        #expect(try loadConfiguration(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/base/"]).tracing.tracesURL == "http://c:4318/base/v1/traces")
        let both = try loadConfiguration(environment: [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://t.example/ingest",
        ])
        #expect(both.tracing.tracesURL == "https://t.example/ingest")
    }

    @Test func flagsOverOTELVariablesOverTheFile() throws {
        let file = #"{"otelExporterOtlpEndpoint": "http://file:4318", "otelTracesSampler": "always_off", "otelServiceName": "from-file"}"#
        #expect(try loadConfiguration(file: file).tracing.sampler == "always_off")
        let environment = ["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"]
        let fromEnvironment = try loadConfiguration(file: file, environment: environment)
        #expect(fromEnvironment.tracing.sampler == "traceidratio")
        #expect(fromEnvironment.tracing.samplerArgument == "0.25")
        #expect(fromEnvironment.tracing.endpoint == "http://env:4318")
        #expect(fromEnvironment.tracing.serviceName == "from-file")
        var flags = FlagSettings()
        flags.otlpEndpoint = "http://flag:4318"
        flags.tracesSampler = "always_on"
        let fromFlags = try loadConfiguration(file: file, environment: environment, flags: flags)
        #expect((fromFlags.tracing.endpoint, fromFlags.tracing.sampler) == ("http://flag:4318", "always_on"))
    }

    /// The share of new traces is drawn before a span is started; swift-otel is given a sampler that keeps what
    /// passed, and follows a caller's decision when the configured sampler does.
    @Test func eachSamplerIsADrawOfNewTracesAndAParentRule() throws {
        func sampling(_ sampler: String, _ argument: String = "") throws -> (Double, Bool, String) {
            let tracing = try loadConfiguration(environment: ["OTEL_TRACES_SAMPLER": sampler, "OTEL_TRACES_SAMPLER_ARG": argument]).tracing
            return (tracing.rootRatio, tracing.followsParent, tracing.exporterSampler)
        }
        #expect(try sampling("always_on") == (1, false, "always_on"))
        #expect(try sampling("always_off") == (0, false, "always_off"))
        #expect(try sampling("traceidratio", "0.01") == (0.01, false, "always_on"))
        #expect(try sampling("traceidratio") == (1, false, "always_on"))
        #expect(try sampling("parentbased_always_on") == (1, true, "parentbased_always_on"))
        #expect(try sampling("parentbased_always_off") == (0, true, "parentbased_always_on"))
        #expect(try sampling("parentbased_traceidratio", "0.25") == (0.25, true, "parentbased_always_on"))
        let server = try loadConfiguration(environment: ["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"]).httpServerConfiguration
        #expect((server.traceRootRatio, server.traceFollowsParent) == (0.5, false))
    }

    @Test func theTracesHeadersWinOverTheSharedOnes() throws {
        let shared = try loadConfiguration(environment: ["OTEL_EXPORTER_OTLP_HEADERS": "api-key=a"])
        #expect(shared.tracing.exportHeaders == "api-key=a")
        let both = try loadConfiguration(environment: ["OTEL_EXPORTER_OTLP_HEADERS": "api-key=a", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=b"])
        #expect(both.tracing.exportHeaders == "api-key=b")
    }

    @Test func badSettingsAreRefusedAtStart() {
        #expect(configurationRefusal(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"]) == "the OTLP endpoint must be an http or https URL")
        #expect(configurationRefusal(environment: ["OTEL_TRACES_SAMPLER": "sometimes"])?.hasPrefix("OTEL_TRACES_SAMPLER must be one of") == true)
        #expect(configurationRefusal(environment: ["OTEL_TRACES_SAMPLER_ARG": "1.5"]) == "OTEL_TRACES_SAMPLER_ARG must be a ratio in 0...1")
        #expect(configurationRefusal(environment: ["OTEL_SERVICE_NAME": ""]) == "OTEL_SERVICE_NAME must not be empty")
        #expect(configurationRefusal(environment: ["LISTDELTA_LOG_FORMAT": "xml"]) == "logFormat must be text or json")
    }

    @Test func aJSONLogLineIsOneObjectWithTheFixedMembersFirstAndTheMetadataAsStrings() throws {
        let line = JSONLogHandler.line(
            milliseconds: 0, level: .warning, label: "listdelta", message: "said \"hi\"\n",
            metadata: ["trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "span_id": "00f067aa0ba902b7", "count": "\(3)", "message": "shadowed"])
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: String])
        #expect(object["time"] == "1970-01-01T00:00:00.000Z")
        #expect(object["level"] == "warning")
        #expect(object["message"] == "said \"hi\"\n")
        #expect(object["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(object["span_id"] == "00f067aa0ba902b7")
        #expect(object["count"] == "3")
        #expect(String(decoding: line, as: UTF8.self).hasPrefix(#"{"time":"#))
    }
}
