import Foundation

/// What the flags of `listdelta serve` set: applied after the file and the environment, so they win. `nil` (or an
/// empty list, or `false`) leaves a setting as the file and the environment made it.
public struct FlagSettings: Sendable, Equatable {
    public var host: String?
    public var port: Int?
    public var dataDirectory: String?
    public var retention: Int?
    public var maxWaitSeconds: Int?
    public var cursorSeconds: Int?
    public var writeTokens: [String] = []
    public var allowAnonymousWrites = false
    public var readAccess: String?
    public var jwtPublicKeys: String?
    public var databaseURL: String?
    public var otlpEndpoint: String?
    public var tracesSampler: String?
    public var tracesSamplerArgument: String?

    /// No flags.
    public init() {}
}

extension ServiceConfiguration {
    /// The settings, from every source in the documented order (docs/configuration.md, Where settings come from):
    /// the built-in defaults, then the configuration file (`file`, or `Config/listdelta.json` when it exists), then
    /// `LISTDELTA_*` variables, then the flags; with `validating`, checked once all are applied (what `serve`
    /// needs; the tools that only read a few settings do not check the rest). Every source is read in full, so a bad
    /// value is refused even where a later source sets the setting again.
    /// - Parameters:
    ///   - read: how a file's bytes are read (`nil` when it cannot be); the file system by default.
    /// - Throws: `ConfigurationError` naming the file or variable and the setting that is wrong.
    public static func load(
        file path: String?, environment: [String: String], flags: FlagSettings = FlagSettings(), validating: Bool = true,
        read: (String) -> [UInt8]? = readFile
    ) throws(ConfigurationError) -> ServiceConfiguration {
        var settings = ServiceConfiguration()
        let file = path ?? "Config/listdelta.json"
        if let bytes = read(file) {
            try settings.apply(fileContents: bytes, name: file)
        } else if path != nil {
            throw ConfigurationError("cannot read the configuration file \(file)")
        }
        try settings.apply(environment: environment)
        settings.apply(flags)
        if validating {
            try settings.validate()
            try settings.validateStore()
        }
        return settings
    }

    /// A file's bytes, or `nil` when it cannot be read.
    public static func readFile(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// Applies the flags that were given.
    mutating func apply(_ flags: FlagSettings) {
        if let host = flags.host { self.host = host }
        if let endpoint = flags.otlpEndpoint {
            // The flag names where spans go, whatever a file or a variable said of either endpoint.
            tracing.endpoint = endpoint
            tracing.tracesEndpoint = ""
        }
        if let sampler = flags.tracesSampler { tracing.sampler = sampler }
        if let argument = flags.tracesSamplerArgument { tracing.samplerArgument = argument }
        if let port = flags.port { self.port = port }
        if let dataDirectory = flags.dataDirectory { self.dataDirectory = dataDirectory }
        if let retention = flags.retention { self.retention = retention }
        if let maxWaitSeconds = flags.maxWaitSeconds { self.maxWaitSeconds = maxWaitSeconds }
        if let cursorSeconds = flags.cursorSeconds { self.cursorSeconds = cursorSeconds }
        if !flags.writeTokens.isEmpty { writeTokens = flags.writeTokens }
        if flags.allowAnonymousWrites { allowAnonymousWrites = true }
        if let readAccess = flags.readAccess { self.readAccess = readAccess }
        if let jwtPublicKeys = flags.jwtPublicKeys { self.jwtPublicKeys = jwtPublicKeys }
        if let databaseURL = flags.databaseURL { self.databaseURL = databaseURL }
    }
}
