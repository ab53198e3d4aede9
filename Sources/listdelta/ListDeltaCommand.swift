import ArgumentParser
import Foundation
import ListDeltaAccess
import ListDeltaServer
import Logging
import Metrics
import Prometheus

/// `listdelta`: the ListDelta service.
@main
struct ListDeltaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listdelta",
        abstract: "Holds sectioned lists, keeps their revisions and serves the updates between any two.",
        subcommands: [Serve.self, Token.self, Backup.self, Health.self],
        defaultSubcommand: Serve.self
    )
}

/// `listdelta serve`.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve API v1.",
        discussion: """
            Settings come from the configuration file (Config/listdelta.json when it exists, or --config), then \
            the environment (\(ServiceConfiguration.environmentNames.joined(separator: ", "))), then these flags.
            """
    )

    @OptionGroup var file: ConfigurationFileOption

    @Option(help: "The address to bind (default 127.0.0.1).")
    var host: String?

    @Option(help: "The TCP port, 0 for any free one (default 8080).")
    var port: Int?

    @Option(help: "The data directory holding the SQLite database (default ./data).")
    var data: String?

    @Option(help: "Revisions kept per list (default 1000).")
    var retention: Int?

    @Option(help: "The longest long poll in seconds (default 60).")
    var maxWait: Int?

    @Option(help: "The length of a poll cursor's interval in seconds: the longest a shared cache keeps a poll's answer (default 20).")
    var cursorSeconds: Int?

    @Option(help: "A bearer token accepted for writes; repeat for several.")
    var writeToken: [String] = []

    @Flag(help: "Allow writes without a token on a non-loopback address.")
    var allowAnonymousWrites = false

    @Option(help: "Who may read lists: public (anyone) or token (default public).")
    var readAccess: String?

    @Option(help: "A JWKS file of RS256/ES256 public keys that scoped tokens may be signed with.")
    var jwtPublicKeys: String?

    @Option(help: "Export spans over OTLP/HTTP to this base URL (/v1/traces is appended); as OTEL_EXPORTER_OTLP_ENDPOINT.")
    var otlpEndpoint: String?

    @Option(help: "How spans are sampled (as OTEL_TRACES_SAMPLER): always_on, always_off, traceidratio, parentbased_always_on (default), parentbased_always_off, parentbased_traceidratio.")
    var tracesSampler: String?

    @Option(help: "The ratio of the traceidratio samplers, 0...1 (as OTEL_TRACES_SAMPLER_ARG).")
    var tracesSamplerArg: String?

    @Option(help: "Keep revisions in PostgreSQL, shared with other instances: postgres://user@host:port/database (the password may come from LISTDELTA_DATABASE_PASSWORD).")
    var databaseUrl: String?

    func run() throws {
        let settings = try loadConfiguration()
        LogLines.bootstrap(format: settings.logFormat, level: Logger.Level(rawValue: settings.logLevel) ?? .info)
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "listdelta")
        ProcessMemory.configure()
        do {
            // jwt-kit builds keys in its actor; this is the main thread, none of Swift concurrency's, so it may wait.
            let keys = try waitForTask { try await settings.verificationKeys() }
            let traceExport = try TraceExport.start(settings.tracing, logger: logger)
            let app = try ListDeltaApp(configuration: settings, logger: logger, registry: registry, keys: keys)
            app.installSignalHandlers()
            try app.start()
            app.waitUntilStopped()
            if let traceExport { try? waitForTask { await traceExport.shutdown() } }
            logger.info("stopped")
        } catch let error as ConfigurationError {
            // One line that says why, and a failing exit: a container or unit that restarts on failure shows it
            // as is, with no usage text around it.
            logger.critical("cannot start: \(error.description)")
            throw ExitCode.failure
        }
    }

    private func loadConfiguration() throws -> ServiceConfiguration {
        var flags = FlagSettings()
        flags.host = host
        flags.port = port
        flags.dataDirectory = data
        flags.retention = retention
        flags.maxWaitSeconds = maxWait
        flags.cursorSeconds = cursorSeconds
        flags.writeTokens = writeToken
        flags.allowAnonymousWrites = allowAnonymousWrites
        flags.readAccess = readAccess
        flags.jwtPublicKeys = jwtPublicKeys
        flags.databaseURL = databaseUrl
        flags.otlpEndpoint = otlpEndpoint
        flags.tracesSampler = tracesSampler
        flags.tracesSamplerArgument = tracesSamplerArg
        return try file.load(flags: flags, validating: true)
    }
}
